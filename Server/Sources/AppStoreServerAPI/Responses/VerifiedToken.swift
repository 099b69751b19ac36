import ReceiptParser

/// A signed member of an answer that verified under the client's trust and expectations: the
/// compact JWS as Apple sent it, its typed payload and the inspection that verified it.
public struct VerifiedToken<Payload: Sendable>: Sendable {
    /// The token as Apple sent it (to forward or store).
    public let jws: String
    /// What it says, typed.
    public let payload: Payload
    /// How it verified: its path in the answer, its chain, its signed date.
    public let inspection: SignedDataInspection
}

/// A payload a signed member can hold.
protocol SignedMemberPayload: Sendable {
    /// The payload, when `decoded` is of this kind.
    static func from(_ decoded: SignedPayload) -> Self?
}

extension SignedTransaction: SignedMemberPayload {
    static func from(_ decoded: SignedPayload) -> Self? { if case .transaction(let value) = decoded { value } else { nil } }
}

extension SignedRenewalInfo: SignedMemberPayload {
    static func from(_ decoded: SignedPayload) -> Self? { if case .renewalInfo(let value) = decoded { value } else { nil } }
}

extension SignedAppTransaction: SignedMemberPayload {
    static func from(_ decoded: SignedPayload) -> Self? { if case .appTransaction(let value) = decoded { value } else { nil } }
}

extension ServerNotification: SignedMemberPayload {
    static func from(_ decoded: SignedPayload) -> Self? { if case .notification(let value) = decoded { value } else { nil } }
}
