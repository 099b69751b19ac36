import Foundation
import ReceiptParser

/// A `PUT /v1/users/{user}` body, `{"appAccountToken": UUID}`: strict JSON, no other member.
enum AppAccountTokenBinding {
    static func appAccountToken(in body: [UInt8]) throws(Refusal) -> UUID {
        let value = try LedgerRequestBody.object(body, members: ["appAccountToken"], expected: "a binding names appAccountToken only")
        guard case .string(let text)? = value["appAccountToken"], let token = UUID(uuidString: text) else {
            throw .invalid(member: "appAccountToken", "appAccountToken is a UUID string, such as 7e3fb20b-4cdb-47cc-936d-99d65f608138")
        }
        return token
    }
}
