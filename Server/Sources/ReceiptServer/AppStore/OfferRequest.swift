import ReceiptParser

/// A `POST /v1/offers/...` body: strict and closed, each member typed. Identifiers are limited
/// in length so that a signature never covers more than StoreKit would send.
struct OfferRequest: Sendable {
    let productId: String
    let offerIdentifier: String?
    let transactionId: String?
    let appAccountToken: String?
    let allowIntroductoryOffer: Bool?

    static let limit = 256

    init(body: [UInt8], members: Set<String>, required: Set<String>, expected: String) throws(Refusal) {
        let value = try LedgerRequestBody.object(body, members: members, expected: expected)
        for member in required.sorted() where value[member] == nil {
            throw .invalid(member: member, "missing; \(expected)")
        }
        productId = try Self.string("productId", in: value) ?? ""
        offerIdentifier = try Self.string("offerIdentifier", in: value)
        transactionId = try Self.string("transactionId", in: value)
        appAccountToken = try Self.string("appAccountToken", in: value)
        switch value["allowIntroductoryOffer"] {
        case nil: allowIntroductoryOffer = nil
        case .bool(let flag)?: allowIntroductoryOffer = flag
        default: throw .invalid(member: "allowIntroductoryOffer", "not a boolean")
        }
    }

    private static func string(_ member: String, in value: StrictJSON.Value) throws(Refusal) -> String? {
        switch value[member] {
        case nil: return nil
        case .string(let text)?:
            guard text.utf8.count <= limit else { throw .invalid(member: member, "longer than \(limit) bytes") }
            guard member == "appAccountToken" || !text.isEmpty else { throw .invalid(member: member, "empty") }
            return text
        default: throw .invalid(member: member, "not a string")
        }
    }
}
