import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import ReceiptParser
import ReceiptTestSupport
import Testing
@testable import ReceiptServer

/// Strings chosen by whoever made a receipt reach the server's log and its support page only
/// as display text: one record is one line, no terminal control, no bidirectional reordering.
struct HostileOutputServerTests {
    /// Receipts from `TestReceipts/hostile` whose strings hold escapes, line breaks, tabs and
    /// bidirectional controls (signed by the test PKI, so they also reach the verified paths).
    static let receipts = ["terminal-escapes.receipt", "newline-tab-fields.receipt", "bidi-controls.receipt",
                           "bad-date-escapes.receipt"]

    static func hostile(_ name: String) throws -> [UInt8] {
        try Paths.bytes(Paths.fixtures.appendingPathComponent("hostile/\(name)"))
    }

    /// A log handler that keeps what it is given, so the test sees what a real handler would print.
    struct Recorder: LogHandler {
        final class Records: @unchecked Sendable {
            private let lock = NSLock()
            private var events: [LogEvent] = []
            func append(_ event: LogEvent) { lock.withLock { events.append(event) } }
            var all: [LogEvent] { lock.withLock { events } }
        }
        let records: Records
        var metadata: Logger.Metadata = [:]
        var metadataProvider: Logger.MetadataProvider?
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            var event = event
            event.metadata = metadata.merging(event.metadata ?? [:]) { $1 }
            records.append(event)
        }
    }

    static func rawControl(in text: String) -> Unicode.Scalar? {
        text.unicodeScalars.first { scalar in
            scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value)
                || [0x061C, 0x200B, 0x200E, 0x200F, 0x2028, 0x2029, 0xFEFF].contains(scalar.value)
                || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
        }
    }

    /// Metadata reaches a record three ways besides the record's own: the wrapped handler's,
    /// the logger's (`logger[metadataKey:]`, as Hummingbird's request id) and a metadata
    /// provider's. Each is escaped when the record is written.
    @Test func metadataFromEveryPlaceIsEscaped() {
        let records = Recorder.Records()
        var inner = Recorder(records: records)
        inner.metadata = ["inner": "a\u{1B}[2Jb"]
        var logger = Logger(label: "hostile") { _ in DisplaySafeLogHandler(wrapping: inner) }
        logger[metadataKey: "base"] = "c\u{202E}d"
        logger.info("line", metadata: ["record": "e\u{85}f"])
        var withProvider = Recorder(records: records)
        withProvider.metadataProvider = Logger.MetadataProvider { ["provider": "g\u{2028}h"] }
        Logger(label: "provided") { _ in DisplaySafeLogHandler(wrapping: withProvider) }.info("line")
        let events = records.all
        #expect(events.count == 2)
        let values = events.flatMap { ($0.metadata ?? [:]).values.flatMap(Self.strings) }
        #expect(values.count == 4, "every value arrives: \(values)")
        for value in values { #expect(Self.rawControl(in: value) == nil, "raw: \(value.debugDescription)") }
    }

    static func strings(in value: Logger.Metadata.Value) -> [String] {
        switch value {
        case .string(let text): [text]
        case .stringConvertible(let item): [item.description]
        case .array(let values): values.flatMap(strings)
        case .dictionary(let members): members.values.flatMap(strings)
        }
    }

    @Test func everyLogRecordIsOneLineOfDisplayText() async throws {
        let records = Recorder.Records()
        let logger = Logger(label: "hostile") { _ in DisplaySafeLogHandler(wrapping: Recorder(records: records)) }
        let app = buildApplication(try ServerTests.testRootConfiguration { $0.acceptedBundleIDs = ["com.example.other"] }, logger: logger)
        try await app.test(.live) { client in
            for name in Self.receipts {
                let receipt = try Self.hostile(name)
                try await client.execute(uri: "/verifyReceipt", method: .post, body: ServerTests().requestBody(receipt)) { _ in }
                try await client.execute(uri: "/v1/receipts", method: .post, body: ByteBuffer(bytes: receipt)) { _ in }
            }
        }
        let events = records.all
        #expect(events.count >= 2 * Self.receipts.count)
        for event in events {
            let texts = [event.message.description] + (event.metadata ?? [:]).values.flatMap(Self.strings)
            for text in texts {
                #expect(Self.rawControl(in: text) == nil, "a log record holds a raw control: \(text.debugDescription)")
                #expect(text.unicodeScalars.count <= DisplayText.reasonLimit + 32)
            }
        }
        // The values are there, escaped, not dropped.
        let bundleIDs = events.compactMap { $0.metadata?["bundle_id"] }.flatMap(Self.strings)
        #expect(bundleIDs.contains { $0.contains("\\u{1B}[2J") })
        let reasons = events.compactMap { $0.metadata?["reason"] }.flatMap(Self.strings)
        #expect(reasons.contains { $0.contains("\\r\\u{1B}[2K") })
    }

    @Test func theSupportPageShowsDisplayText() async throws {
        let app = buildApplication(try ServerTests.testRootConfiguration(), logger: ServerTests.logger)
        try await app.test(.live) { client in
            for name in Self.receipts {
                let base64 = Data(try Self.hostile(name)).base64EncodedString()
                let form = "receipt=" + (base64.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
                try await client.execute(uri: "/", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                                         body: ByteBuffer(string: form)) { response in
                    #expect(response.status == .ok)
                    let page = String(buffer: response.body)
                    let raw = page.unicodeScalars.first { $0 != "\n" && Self.rawControl(in: String($0)) != nil }
                    #expect(raw == nil, "\(name): the page holds U+\(String(raw?.value ?? 0, radix: 16)) raw")
                    #expect(page.components(separatedBy: "id=\"verdict\"").count == 2, "\(name): one verdict")
                }
            }
        }
    }

    @Test func typedJSONKeepsTheExactValueWithInvisiblesEscaped() async throws {
        let app = buildApplication(try ServerTests.testRootConfiguration(), logger: ServerTests.logger)
        try await app.test(.live) { client in
            try await client.execute(uri: "/v1/receipts", method: .post, body: ByteBuffer(bytes: try Self.hostile("bidi-controls.receipt"))) { response in
                #expect(response.status == .ok)
                let text = String(buffer: response.body)
                #expect(Self.rawControl(in: text) == nil)
                let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
                let receipt = try #require(json["receipt"] as? [String: Any])
                #expect((receipt["bundleID"] as? String)?.unicodeScalars.contains("\u{202E}") == true)
            }
        }
    }
}

/// Markup, environments and endpoints: what a pasted or posted receipt can make the server do.
struct HostileRequestServerTests {
    static func form(_ value: String) -> ByteBuffer {
        ByteBuffer(string: "receipt=" + (value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
    }

    @Test func markupInAPasteStaysText() async throws {
        // A `<` or `>` joined to a combining or prepended mark is one Character to Swift but
        // markup to a browser; the duplicate-key body puts its key into the verdict line.
        let pastes = ["\u{D4E}</textarea>\u{301}\u{D4E}<svg onload=alert(document.domain)>\u{301}",
                      "{\"\u{D4E}<img src=x onerror=alert(1)>\u{301}\":1,\"\u{D4E}<img src=x onerror=alert(1)>\u{301}\":2}"]
        let app = buildApplication(try ServerTests.testRootConfiguration(), logger: ServerTests.logger)
        try await app.test(.live) { client in
            for paste in pastes {
                try await client.execute(uri: "/", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                                         body: Self.form(paste)) { response in
                    #expect(response.status == .ok)
                    let page = String(buffer: response.body)
                    #expect(!page.contains("<svg") && !page.contains("<img"), "markup from the paste reached the page")
                    #expect(page.components(separatedBy: "</textarea>").count == 2, "the paste closed the text area")
                    #expect(page.contains("&lt;"))
                    #expect(response.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
                }
            }
        }
    }

    @Test func aFormThatNamesTheReceiptTwiceIsRefused() async throws {
        let base64 = Data(try Paths.fixture("sample.receipt")).base64EncodedString()
        let encoded = base64.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let other = Data(try Paths.fixture("no-in-app.receipt")).base64EncodedString().addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let app = buildApplication(try ServerTests.testRootConfiguration(), logger: ServerTests.logger)
        try await app.test(.live) { client in
            // Twice, the second time with its name percent-encoded: ambiguous, refused.
            try await client.execute(uri: "/", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                                     body: ByteBuffer(string: "receipt=\(encoded)&rec%65ipt=\(other)")) { response in
                #expect(response.status == .badRequest)
                let json = try ServerTests().object(response.body)
                let error = RefusalShape.error(json, verification: false)
                #expect(error["code"] == "invalidRequest")
                #expect(error["member"] == "receipt")
            }
            // Once, with its name encoded: read.
            try await client.execute(uri: "/", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                                     body: ByteBuffer(string: "rec%65ipt=\(encoded)")) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("class=\"verified\""))
            }
        }
    }

    @Test func everyRouteAppliesTheEnvironmentRule() async throws {
        let app = buildApplication(try ServerTests.testRootConfiguration { $0.expectedEnvironment = .production }, logger: ServerTests.logger)
        // Receipt-type fixtures of TestReceipts/hostile and the status a production server owes them.
        let cases: [(String, Int)] = [("production", 0), ("production-vpp", 0), ("production-sandbox", 21007),
                                      ("production-vpp-sandbox", 21007), ("xcode", 21007), ("missing", 21003),
                                      ("unknown", 21003), ("lowercase", 21003)]
        try await app.test(.live) { client in
            for (label, status) in cases {
                let receipt = try HostileOutputServerTests.hostile("receipt-type-\(label).receipt")
                try await client.execute(uri: "/verifyReceipt", method: .post, body: ServerTests().requestBody(receipt)) { response in
                    let json = try ServerTests().object(response.body)
                    #expect(json["status"] as? Int == status, "/verifyReceipt, \(label)")
                }
                try await client.execute(uri: "/v1/receipts", method: .post, body: ByteBuffer(bytes: receipt)) { response in
                    let json = try ServerTests().object(response.body)
                    #expect(response.status == (status == 0 ? .ok : .unprocessableContent), "/v1/receipts, \(label)")
                    if status == 0 {
                        #expect(json["verdict"] as? String == "verified")
                    } else {
                        #expect(json["status"] as? Int == status, "/v1/receipts, \(label)")
                        #expect((json["error"] as? [String: Any])?["code"] as? String == "environmentMismatch")
                    }
                }
                let base64 = Data(receipt).base64EncodedString()
                try await client.execute(uri: "/", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                                         body: Self.form(base64)) { response in
                    let page = String(buffer: response.body)
                    #expect(page.contains(status == 0 ? "class=\"verified\"" : "NOT ACCEPTED (\(status))"), "page, \(label)")
                }
            }
        }
    }
}
