import AppStoreServerAPI
import ArgumentParser
import Foundation
import ReceiptParser
import ReceiptReports

/// What `receipt-dump api` prints of a call: each answer's members and each signed value's
/// report (the same reports as receipt-dump's for tokens), or the error; and the exit status.
enum APIOutput {
    static func run(_ options: APIOptions, call: String,
                    _ body: @escaping @Sendable (AppStoreServerAPIClient) async throws(AppStoreAPIError) -> [AppStoreAnswer]) async throws {
        let client = try options.makeClient()
        // --max-wait bounds the whole command, also one of several calls (test-notification).
        let bound = options.maxWait
        // The host asked first: sandbox's when only sandbox is asked.
        let base = options.environment == .sandbox ? options.sandboxAPIURL : options.apiURL
        let host = URL(string: base)?.host ?? base
        let outcome = await withTaskGroup(of: Result<[AppStoreAnswer], AppStoreAPIError>?.self) { group in
            group.addTask {
                do throws(AppStoreAPIError) {
                    return .success(try await body(client))
                } catch {
                    return .failure(error)
                }
            }
            group.addTask {
                try? await Task.sleep(for: .milliseconds(Int64(bound * 1000) + 100))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .failure(.noAnswer(host: host, reason: "the command ran past --max-wait (\(bound) s)"))
        }
        try? await client.shutdown()
        switch outcome {
        case .success(let answers):
            print(render(answers, call: call, options: options, verifier: client.configuration.trust,
                         statusTime: options.trust.instant ?? Date()), terminator: "")
        case .failure(let error):
            if options.format == .json {
                var json = JSONWriter(layout: .indented)
                json.beginObject()
                json.key("call"); json.string(call)
                json.key("error"); json.string(error.description)
                json.key("status"); json.number(Int(error.exitStatus))
                json.endObject()
                print(json.finishString())
            }
            FileHandle.standardError.write(Data("receipt-dump api \(DisplayText.escape(call, limit: 300)): \(error.description)\n".utf8))
            throw ExitCode(error.exitStatus)
        }
    }

    /// - Parameter verifier: the client's trust, for the instant certificates were judged at.
    static func render(_ answers: [AppStoreAnswer], call: String, options: APIOptions, verifier: SignedDataVerifier,
                       statusTime: Date) -> String {
        switch options.format {
        case .json:
            var json = JSONWriter(layout: .indented)
            json.beginObject()
            json.key("answers")
            json.beginArray()
            for answer in answers {
                json.beginObject()
                json.key("body"); answer.body.write(to: &json)
                json.key("environment"); json.string(answer.environment.storeKitName ?? "\(answer.environment)")
                json.key("host"); json.string(answer.host)
                json.key("report"); DumpResult.inspected(name: call, tokens: answer.tokens, by: verifier, statusTime: statusTime).write(to: &json)
                json.endObject()
            }
            json.endArray()
            json.key("call"); json.string(call)
            json.key("status"); json.number(0)
            json.endObject()
            return json.finishString() + "\n"
        case .text:
            let onTerminal = isatty(STDOUT_FILENO) == 1
            let style = Style(enabled: !options.noColor && onTerminal && ProcessInfo.processInfo.environment["NO_COLOR"] == nil)
            let renderer = Renderer(format: .text, style: style, showDetails: false, statusTime: statusTime, expectedEnvironment: nil)
            var text = ""
            for (index, answer) in answers.enumerated() {
                let page = answers.count > 1 ? " (page \(index + 1) of \(answers.count))" : ""
                text += "\(DisplayText.escape(call, limit: 300))\(page): answered by \(DisplayText.escape(answer.host, limit: 200)) (\(answer.environment.storeKitName ?? "\(answer.environment)"))\n"
                for line in memberLines(answer.body, path: "") { text += "  " + line + "\n" }
                if !answer.tokens.isEmpty {
                    text += renderer.render(DumpResult.inspected(name: call + page, tokens: answer.tokens,
                                                                 by: verifier, statusTime: statusTime))
                }
                text += "\n"
            }
            if answers.allSatisfy({ $0.tokens.isEmpty && $0.body == .object([]) }) {
                text += "\(DisplayText.escape(call, limit: 300)): done (Apple answered with no body)\n"
            }
            return text
        }
    }

    /// The answer's own members, tokens left to their reports: `name: value`, escaped.
    static func memberLines(_ value: StrictJSON.Value, path: String) -> [String] {
        switch value {
        case .object(let members):
            return members.flatMap { member -> [String] in
                let name = path.isEmpty ? member.key : path + "." + member.key
                if member.key.hasPrefix("signed") { return [] }
                return memberLines(member.value, path: name)
            }
        case .array(let elements):
            return elements.enumerated().flatMap { memberLines($0.element, path: "\(path)[\($0.offset)]") }
        case .string(let text): return ["\(DisplayText.escape(path, limit: 200)): \(DisplayText.escape(text, limit: 500))"]
        case .number(let text):
            // Apple's instants are UNIX milliseconds: shown as RFC 3339 too.
            if path.hasSuffix("Date"), let milliseconds = Int64(text), abs(milliseconds) < 1 << 50 {
                let date = Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000)
                return ["\(DisplayText.escape(path, limit: 200)): \(RFC3339.string(from: date)) (\(text))"]
            }
            return ["\(DisplayText.escape(path, limit: 200)): \(DisplayText.escape(text, limit: 100))"]
        case .bool(let flag): return ["\(DisplayText.escape(path, limit: 200)): \(flag)"]
        case .null: return ["\(DisplayText.escape(path, limit: 200)): null"]
        }
    }
}
