import ReceiptParser

/// The --format json output: the full typed model of one receipt, or each token's inspection,
/// written by ``JSONWriter`` straight into one buffer, without a tree of values: memory stays the
/// output's size. Its layout is `JSONEncoder`'s (keys sorted, `.prettyPrinted` when indented):
/// JSONReportTests compare the two.
package enum JSONReport {
    package static func render(_ result: DumpResult, layout: JSONWriter.Layout = .indented, outerLevel: Int = 0) -> String {
        var json = JSONWriter(layout: layout, capacity: 4096, outerLevel: outerLevel)
        result.write(to: &json)
        return json.finishString()
    }
}

extension DumpResult: JSONWritable {
    /// `Encodable`: the JSON ``write(to:)`` writes, as `--format json` does.
    public func encode(to encoder: any Encoder) throws { try encodeWritten(to: encoder) }

    /// The members in sorted key order.
    public func write(to json: inout JSONWriter) {
        if let tokens {
            // Signed data: each token's inspection (see SignedDataJSON.swift).
            json.beginObject()
            json.member("error", problem)
            json.member("file", file)
            json.member("judgedAt", tokensJudgedAt)
            json.member("reconciliation", reconciliation)
            json.member("status", Int(exitStatus))
            if let subscriptions {
                json.key("subscriptions")
                json.beginObject()
                json.member("at", milliseconds: subscriptions.at)
                json.member("entries", subscriptions.entries)
                json.endObject()
            }
            json.member("tokens", tokens)
            json.member("verdict", verdict)
            json.endObject()
            return
        }
        json.beginObject()
        json.key("certificates")
        if let certificateDetails { json.value(certificateDetails) } else { json.value(certificates) }
        if !checks.isEmpty { json.member("checks", checks) }
        json.member("error", problem)
        json.member("file", file)
        json.member("receipt", receipt)
        json.member("reconciliation", reconciliation)
        json.member("status", Int(exitStatus))
        json.member("verdict", verdict)
        if case .success(let report)? = verification { json.member("verification", report) }
        json.endObject()
    }
}

extension CheckResult: JSONWritable {
    package func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("detail", detail)
        json.member("name", name)
        json.member("passed", passed)
        json.endObject()
    }
}

extension Reconciliation: JSONWritable {
    package func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("notCredited", notCredited)
        json.member("notInReceipt", notInReceipt)
        json.endObject()
    }
}

extension Problem: JSONWritable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("code", code)
        json.member("reason", reason)
        json.endObject()
    }
}
