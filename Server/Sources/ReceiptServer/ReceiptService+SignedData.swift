import Logging
import ReceiptParser

// What the server does with StoreKit 2 signed data, independent of HTTP: the routes' rules on
// top of the library's inspections (SignedDataOutcome), and their log records.

extension ReceiptService {
    /// Where Apple posts App Store Server Notifications V2.
    static let notificationsRoute = "v2/notifications"

    /// `POST /v2/notifications`: Apple's body, `{"signedPayload": "..."}`, strict JSON. Every
    /// signed member is verified, the notification's nested tokens with it. A notification's
    /// claimed payload is kept when it fails, so the refusal's log names its UUID and type.
    func verifyNotification(body: [UInt8]) -> SignedDataOutcome {
        // Apple posts a JSON object; a bare token is someone else's request, refused unread.
        guard body.first(where: { !Self.isJSONWhitespace($0) }) == UInt8(ascii: "{") else {
            return SignedDataOutcome(refusal: .signedData(member: nil, verdict: .unreadable, code: ReceiptError.Code.invalidJSON.name,
                                                    reason: "the body is not a JSON object; Apple posts {\"signedPayload\": \"...\"}"))
        }
        let options = InspectionOptions(decodesUnverified: true, summarizesCertificates: false)
        var outcome = SignedDataOutcome(configuration.signedDataVerifier.inspectAll(body, options: options))
        outcome.refuse { inspections in
            guard !inspections.contains(where: { $0.member == "signedPayload" }) else { return nil }
            let members = inspections.compactMap(\.member).joined(separator: ", ")
            return .signedData(member: nil, verdict: .notVerified, code: ReceiptError.Code.wrongKind.name,
                         reason: "the body holds no signedPayload, only \(members); post App Store Server API answers to /v1/transactions")
        }
        return outcome
    }

    /// `POST /v1/transactions`: a bare transaction token, or an App Store Server API answer
    /// (`signedTransactionInfo`, `signedTransactions`, with `signedRenewalInfo` beside them).
    /// Renewal info alone is refused: it names no app, so nothing ties it to one this server
    /// serves; beside a transaction it must share its `originalTransactionId`.
    func verifyTransactions(body: [UInt8]) -> SignedDataOutcome {
        var outcome = SignedDataOutcome(configuration.signedDataVerifier.inspectAll(body, expecting: .transaction))
        outcome.refuse { inspections in
            if let other = inspections.first(where: { $0.kind != .transaction && $0.kind != .renewalInfo }) {
                let route = other.kind == .notification ? "/\(ReceiptService.notificationsRoute)" : "no route of this server"
                return .signedData(member: other.member, verdict: .notVerified, code: ReceiptError.Code.wrongKind.name,
                             reason: "a token of kind \(other.kind?.rawValue ?? "none") where transactions are expected; it belongs to \(route)")
            }
            guard !inspections.contains(where: { $0.kind == .transaction }) else { return nil }
            return .signedData(member: nil, verdict: .notVerified, code: ReceiptError.Code.wrongKind.name,
                         reason: "the body holds renewal info and no transaction; renewal info names no app, so send it with its signedTransactionInfo")
        }
        return outcome
    }

    /// The support page: any signed data, the claimed payloads and certificates kept so staff see
    /// what a refused token says (marked as not verified).
    func inspectPasted(signedData input: [UInt8]) -> SignedDataOutcome {
        let options = InspectionOptions(decodesUnverified: true, summarizesCertificates: true)
        return SignedDataOutcome(configuration.signedDataVerifier.inspectAll(input, options: options))
    }

    /// One record per input: info when accepted, notice when refused, with the notification's
    /// UUID, type and subtype when there is one (as claimed, when refused; the log handler
    /// escapes every value).
    func log(_ outcome: SignedDataOutcome, route: String, logger: Logger) {
        metrics.countVerification(route: route, code: outcome.refusal?.code ?? "verified")
        var metadata: Logger.Metadata = ["route": .string(route), "tokens": .stringConvertible(outcome.inspections.count)]
        let notification = outcome.notification
        // On the notifications route every record names them, "-" when the body holds none.
        let aboutNotification = notification != nil || route == Self.notificationsRoute
        if aboutNotification {
            metadata["notification_uuid"] = .string(notification?.notificationUUID ?? "-")
            metadata["notification_type"] = .string(notification?.notificationType?.rawValue ?? "-")
            metadata["subtype"] = .string(notification?.subtype?.rawValue ?? "-")
        }
        let what = aboutNotification ? "notification" : "signed data"
        guard let refusal = outcome.refusal else {
            let first = outcome.inspections.first?.decoded
            metadata["bundle_id"] = .string(first?.bundleId ?? "-")
            metadata["environment"] = .string(first?.environment ?? "-")
            logger.info("\(what) verified", metadata: metadata)
            return
        }
        metadata["code"] = .string(refusal.code)
        metadata["member"] = .string(refusal.member ?? "-")
        metadata["reason"] = .string(refusal.reason)
        logger.notice("\(what) refused", metadata: metadata)
    }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
