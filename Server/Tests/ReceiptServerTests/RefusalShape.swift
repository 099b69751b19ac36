import Foundation
import ReceiptParser
import Testing

/// The one shape of every refusal: `{"error":{"code","reason","member"?},"status"?,"verdict"?}`.
enum RefusalShape {
    /// Why `json` is not a refusal in the one shape; nil when it is. With `verification`, whether
    /// `status` and `verdict` must be there (a refused verification) or absent (anything else).
    static func problem(_ json: [String: Any], verification: Bool? = nil) -> String? {
        guard let error = json["error"] as? [String: Any] else { return "no error object in \(json)" }
        if let extra = Set(json.keys).subtracting(["error", "status", "verdict"]).first { return "unknown member \(extra)" }
        if let extra = Set(error.keys).subtracting(["code", "reason", "member"]).first { return "unknown error member \(extra)" }
        guard let code = error["code"] as? String, !code.isEmpty else { return "no code" }
        guard let reason = error["reason"] as? String, !reason.isEmpty else { return "no reason" }
        if error["member"] != nil, !(error["member"] is String) { return "member is not a string" }
        if json["status"] != nil, !(json["status"] is Int) { return "status is not a number" }
        if let verdict = json["verdict"], (verdict as? String).flatMap(Verdict.init(rawValue:)) == nil { return "unknown verdict \(verdict)" }
        switch verification {
        case true?: if json["status"] == nil || json["verdict"] == nil { return "a refused verification without status and verdict" }
        case false?: if json["status"] != nil || json["verdict"] != nil { return "status or verdict outside a verification" }
        case nil: break
        }
        _ = reason
        return nil
    }

    /// `error` of a refusal (code, member when named, reason), after checking its shape; empty
    /// for an answer that is no refusal (so that a test expecting a code fails there).
    static func error(_ json: [String: Any], verification: Bool? = nil, sourceLocation: SourceLocation = #_sourceLocation) -> [String: String] {
        guard json["error"] != nil else { return [:] }
        if let problem = problem(json, verification: verification) { Issue.record("\(problem)", sourceLocation: sourceLocation) }
        return json["error"] as? [String: String] ?? [:]
    }
}
