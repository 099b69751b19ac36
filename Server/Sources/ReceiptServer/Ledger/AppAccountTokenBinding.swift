import Foundation
import ReceiptParser

/// A `PUT /v1/users/{user}` body, `{"appAccountToken": UUID}`: strict JSON, no other member.
enum AppAccountTokenBinding {
    static func appAccountToken(in body: [UInt8]) throws(LedgerRequestError) -> UUID {
        let value: StrictJSON.Value
        do {
            value = try StrictJSON.parse(body)
        } catch {
            throw LedgerRequestError(status: .badRequest, code: error.code.name, member: nil, reason: error.reason)
        }
        guard case .object(let object) = value else { throw .invalid(member: nil, "the body is not a JSON object") }
        if let unknown = object.first(where: { $0.key != "appAccountToken" }) {
            throw .invalid(member: unknown.key, "unknown member; a binding names appAccountToken only")
        }
        guard case .string(let text)? = value["appAccountToken"], let token = UUID(uuidString: text) else {
            throw .invalid(member: "appAccountToken", "appAccountToken is a UUID string, such as 7e3fb20b-4cdb-47cc-936d-99d65f608138")
        }
        return token
    }
}
