import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// A headless chromium driven through WebDriver (Debian's chromedriver), as a person drives a
/// browser: open a page, type into its fields, click its button, wait until the answer shows.
///
/// Each step waits on the browser itself (a click waits for the navigation it starts; `source`
/// polls the live DOM), so nothing depends on how long the page takes on a loaded machine.
struct WebDriverBrowser: Sendable {
    static let chromedriverPath: String? = ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }
    static let chromiumPath: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let endpoint: String
    private let session: String

    /// Starts chromedriver and one browser session, runs `body`, and ends both, also when `body` throws.
    static func withBrowser<T>(_ body: (WebDriverBrowser) async throws -> T) async throws -> T {
        guard let chromedriverPath, let chromiumPath else {
            throw Failure(description: "chromium or chromedriver is not installed (scripts/bootstrap --server)")
        }
        let (driver, port) = try await startDriver(chromedriverPath)
        defer { stop(driver) }
        let endpoint = "http://127.0.0.1:\(port)"
        let capabilities: [String: Any] = ["capabilities": ["alwaysMatch": ["goog:chromeOptions": [
            "binary": chromiumPath,
            "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        ]]]]
        let created = try await command(endpoint, .POST, "/session", capabilities)
        guard let session = (created as? [String: Any])?["sessionId"] as? String else {
            throw Failure(description: "chromedriver started no session: \(String(describing: created))")
        }
        let browser = WebDriverBrowser(endpoint: endpoint, session: session)
        do {
            let result = try await body(browser)
            _ = try? await command(endpoint, .DELETE, "/session/\(session)", nil)
            return result
        } catch {
            _ = try? await command(endpoint, .DELETE, "/session/\(session)", nil)
            throw error
        }
    }

    /// Opens `url` and returns once it has loaded.
    func open(_ url: String) async throws {
        _ = try await command(.POST, "url", ["url": url])
    }

    /// Types `text` into the field `selector` names (a CSS selector), as keystrokes.
    func type(_ text: String, into selector: String) async throws {
        let element = try await find(selector)
        _ = try await command(.POST, "element/\(element)/value", ["text": text])
    }

    /// Pastes `text` into the field `selector` names: the whole value at once, as a paste does
    /// (typing a receipt's thousands of characters one key at a time only slows the test).
    func paste(_ text: String, into selector: String) async throws {
        let element = try await find(selector)
        _ = try await command(.POST, "execute/sync", [
            "script": "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'));",
            "args": [[Self.elementKey: element], text],
        ])
    }

    /// Clicks the element `selector` names; WebDriver waits for the navigation the click starts.
    func click(_ selector: String) async throws {
        let element = try await find(selector)
        _ = try await command(.POST, "element/\(element)/click", [:])
    }

    /// The page's DOM once it contains `marker`; fails when it has not within `timeout`.
    func source(containing marker: String, timeout: Duration = .seconds(30)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            let source = try await command(.GET, "source", nil) as? String ?? ""
            if source.contains(marker) { return source }
            guard ContinuousClock.now < deadline else {
                throw Failure(description: "the page did not show \(marker) within \(timeout): \(source.prefix(2_000))")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    // MARK: - The WebDriver protocol

    /// The key W3C WebDriver names a found element's reference with.
    private static let elementKey = "element-6066-11e4-a52e-4f735466cecf"

    private func find(_ selector: String) async throws -> String {
        let found = try await command(.POST, "element", ["using": "css selector", "value": selector])
        guard let element = (found as? [String: Any])?[Self.elementKey] as? String else {
            throw Failure(description: "no element \(selector): \(String(describing: found))")
        }
        return element
    }

    private func command(_ method: HTTPMethod, _ path: String, _ body: [String: Any]?) async throws -> Any? {
        try await Self.command(endpoint, method, "/session/\(session)/\(path)", body)
    }

    /// Sends one WebDriver command and returns its `value`; a WebDriver error throws.
    private static func command(_ endpoint: String, _ method: HTTPMethod, _ path: String, _ body: [String: Any]?) async throws -> Any? {
        var request = HTTPClientRequest(url: endpoint + path)
        request.method = method
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: body)))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
        let bytes = try await response.body.collect(upTo: 64 << 20)
        let answer = try JSONSerialization.jsonObject(with: Data(buffer: bytes), options: [.fragmentsAllowed])
        let value = (answer as? [String: Any])?["value"]
        guard response.status == .ok else {
            throw Failure(description: "WebDriver \(method) \(path): \(response.status): \(String(describing: value))")
        }
        return value is NSNull ? nil : value
    }

    /// chromedriver, listening on a port of its choosing. With `--port=0` it may pick a number
    /// that it then finds taken on one of IPv4 and IPv6 on a busy machine ("IPv4 port not
    /// available. Exiting..."): it is started again, on another, up to five times.
    private static func startDriver(_ path: String) async throws -> (Process, Int) {
        var attempt = 0
        while true {
            attempt += 1
            let driver = Process()
            driver.executableURL = URL(fileURLWithPath: path)
            driver.arguments = ["--port=0"]
            let output = Pipe()
            driver.standardOutput = output
            driver.standardError = FileHandle.nullDevice
            try driver.run()
            do {
                return (driver, try await announcedPort(output.fileHandleForReading))
            } catch let failure as Failure where failure.description.contains("port not available") && attempt < 5 {
                stop(driver)
            } catch {
                stop(driver)
                throw error
            }
        }
    }

    /// SIGKILL: chromedriver inherits the test process's blocked signals, SIGTERM among them.
    private static func stop(_ driver: Process) {
        kill(driver.processIdentifier, SIGKILL)
        driver.waitUntilExit()
    }

    /// The port chromedriver says it listens on ("… started successfully on port N.").
    private static func announcedPort(_ output: FileHandle) async throws -> Int {
        // Read on a thread of its own: a blocking read must not hold one of the cooperative pool's threads.
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                var text = ""
                while true {
                    let chunk = output.availableData
                    guard !chunk.isEmpty else {
                        continuation.resume(throwing: Failure(description: "chromedriver exited: \(text)"))
                        return
                    }
                    text += String(decoding: chunk, as: UTF8.self)
                    if let range = text.range(of: "started successfully on port ") {
                        let digits = text[range.upperBound...].prefix { $0.isNumber }
                        if let port = Int(digits), text[range.upperBound...].dropFirst(digits.count).first == "." {
                            continuation.resume(returning: port)
                            // Keep draining: a full pipe would stop chromedriver at its next line.
                            while !output.availableData.isEmpty {}
                            return
                        }
                    }
                }
            }.start()
        }
    }
}
