// Signed data's JSON, written directly, for receipt-dump's `--format json` and receipt-server's
// answers: one object per inspected token, failures included.

extension SignedDataInspection: JSONWritable {
    /// `member`, `kind`, `verdict`, `error` {code, reason}, `verification`, `checks`,
    /// `payload` (typed when the kind is known), `nested`; absent members are left out.
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("member", member)
        json.member("kind", (kind ?? expectedKind)?.rawValue)
        json.member("verdict", verdict)
        if let failure {
            json.key("error")
            json.beginObject()
            json.member("code", failure.code.name)
            json.member("reason", failure.reason)
            json.endObject()
        }
        if case .success(let report)? = verification { json.member("verification", report) }
        if !checks.isEmpty { json.member("checks", checks) }
        // The typed payload (dates as RFC 3339, unknown members kept after the known ones), or
        // the payload as signed when its kind is unknown.
        if let decoded {
            json.member("payload", decoded)
        } else {
            json.member("payload", payload)
        }
        if !nested.isEmpty { json.member("nested", nested) }
        json.endObject()
    }
}

extension AcceptanceCheck: JSONWritable {
    /// `Encodable`: the JSON ``write(to:)`` writes.
    public func encode(to encoder: any Encoder) throws { try encodeWritten(to: encoder) }

    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("name", name)
        json.member("outcome", outcome.rawValue)
        json.member("detail", detail)
        json.endObject()
    }
}
