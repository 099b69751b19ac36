/// The ways StoreKit 2 signed data arrives: a bare compact JWS, or a JSON body that holds tokens
/// (a V2 notification's `{"signedPayload": ...}`, App Store Server API responses with
/// `signedTransactionInfo`, `signedRenewalInfo`, `signedTransactions` or
/// `signedAppTransactionInfo`).
public enum SignedDataInput {
    /// The members of a JSON body that hold tokens, and the kind each must be.
    static let members: [(name: String, kind: SignedDataKind)] = [
        ("signedPayload", .notification), ("signedTransactionInfo", .transaction), ("signedRenewalInfo", .renewalInfo),
        ("signedTransactions", .transaction), ("signedAppTransactionInfo", .appTransaction),
    ]

    /// Whether `input` is signed data rather than an app receipt: a compact JWS (text starting
    /// as a JSON header's base64url does, with a dot, which base64 never has) or a JSON body
    /// naming a token member and no `receipt-data`. Only a router between the two pipelines;
    /// each reads its input strictly, and either refuses what is neither (exit status 2).
    public static func isSignedData(_ input: [UInt8]) -> Bool {
        guard let first = input.first(where: { !Base64.isWhitespace($0) }) else { return false }
        if first == UInt8(ascii: "{") {
            return !ByteSearch.contains(Array("\"receipt-data\"".utf8), in: input)
                && members.contains { ByteSearch.contains(Array("\"\($0.name)\"".utf8), in: input) }
        }
        // A compact JWS starts as a JSON object's base64url does ("ey" for `{"`, "ew" for `{`
        // and a line break: no base64 receipt and no hexadecimal does) and has a dot; or it is
        // base64 text with exactly two dots. Anything else is read as a receipt.
        let text = input.drop { Base64.isWhitespace($0) }
        let dot = UInt8(ascii: ".")
        if text.starts(with: Array("ey".utf8)) || text.starts(with: Array("ew".utf8)) { return text.contains(dot) }
        guard text.allSatisfy({ isBase64Character($0) || $0 == dot || Base64.isWhitespace($0) }) else { return false }
        return text.lazy.filter { $0 == dot }.count == 2
    }

    /// Either base64 alphabet, padding included.
    private static func isBase64Character(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="): true
        default: false
        }
    }
}

extension SignedDataVerifier {
    /// Inspects every token an input holds: one for a bare token, each signed member of a JSON
    /// body (every element of `signedTransactions`, both `signedTransactionInfo` and
    /// `signedRenewalInfo` when both are there), in the body's order. The input verifies only
    /// when every inspection does, and the tokens of one body must agree (``BodyAgreement``:
    /// one app, one environment, renewal info of a transaction beside it).
    ///
    /// A body that is not strict JSON (a duplicate key anywhere, nesting deeper than
    /// ``DecodingLimits/maximumTokenJSONDepth``) or holds no token member is one unreadable
    /// inspection. `kind` is the kind a bare token must be.
    public func inspectAll(_ input: [UInt8], expecting kind: SignedDataKind? = nil,
                           options: InspectionOptions = .verifiedOnly) -> [SignedDataInspection] {
        guard input.first(where: { !Base64.isWhitespace($0) }) == UInt8(ascii: "{") else {
            return [inspect(input, member: nil, expecting: kind, options: options)]
        }
        let body: StrictJSON.Value
        do throws(ReceiptError) {
            body = try StrictJSON.parse(input, maximumDepth: DecodingLimits.maximumTokenJSONDepth)
        } catch {
            return [SignedDataInspection(member: nil, expectedKind: kind, readError: ReceiptError(error.code, "the JSON body: \(error.reason)"))]
        }
        var inspections: [SignedDataInspection] = []
        for member in SignedDataInput.members {
            guard let value = body[member.name], value != .null else { continue }
            let tokens: [(String, StrictJSON.Value)]
            if member.name == "signedTransactions" {
                guard case .array(let elements) = value else {
                    inspections.append(SignedDataInspection(member: member.name, expectedKind: member.kind, readError:
                        ReceiptError(.wrongValueType, "\(member.name) is \(value.typeName), not an array of tokens")))
                    continue
                }
                tokens = elements.enumerated().map { ("\(member.name)[\($0.offset)]", $0.element) }
            } else {
                tokens = [(member.name, value)]
            }
            for (path, token) in tokens {
                guard case .string(let text) = token else {
                    inspections.append(SignedDataInspection(member: path, expectedKind: member.kind, readError:
                        ReceiptError(.wrongValueType, "\(path) is \(token.typeName), not a token")))
                    continue
                }
                inspections.append(inspect(Array(text.utf8), member: path, expecting: member.kind, options: options))
            }
        }
        BodyAgreement.apply(to: &inspections)
        if inspections.isEmpty {
            let names = SignedDataInput.members.map(\.name).joined(separator: ", ")
            return [SignedDataInspection(member: nil, expectedKind: kind, readError:
                ReceiptError(.malformedToken, "the JSON body holds no token (none of \(names))"))]
        }
        return inspections
    }
}
