import ReceiptParser

/// The --format json output: the full typed model of one receipt, written by ``JSONWriter``
/// straight into one buffer. The text is the one `JSONEncoder.receiptModels` gives for the
/// `Codable` result (JSONReportTests compare them), without its tree of values: memory stays
/// the output's size.
package enum JSONReport {
    package static func render(_ result: DumpResult, layout: JSONWriter.Layout = .indented, outerLevel: Int = 0) -> String {
        var json = JSONWriter(layout: layout, capacity: 4096, outerLevel: outerLevel)
        result.write(to: &json)
        return json.finishString()
    }
}

extension DumpResult: JSONWritable {
    // The members of `encode(to:)`, in sorted key order.
    public func write(to json: inout JSONWriter) {
        if let tokens {
            // Signed data: each token's inspection (see SignedDataJSON.swift).
            json.beginObject()
            json.member("error", problem)
            json.member("file", file)
            json.member("judgedAt", tokensJudgedAt)
            json.member("reconciliation", reconciliation)
            json.member("status", Int(exitStatus))
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
