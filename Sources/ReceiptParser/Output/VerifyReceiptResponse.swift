#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Responses in the format of Apple's deprecated verifyReceipt service, made locally.
///
/// Same keys, value types and formats as Apple's: date triplets (`purchase_date` as
/// `"2020-07-14 19:36:40 Etc/GMT"`, `purchase_date_ms` as a string of milliseconds,
/// `purchase_date_pst` in America/Los_Angeles with daylight saving), numbers as strings inside
/// `in_app` and as numbers in `receipt`, booleans as `"true"`/`"false"`. Keys Apple adds from
/// its servers (`latest_receipt_info`, `latest_receipt`, `pending_renewal_info`) are absent: a
/// receipt alone cannot know them.
///
/// ```swift
/// let outcome = Result { try verifier.verifyAndDecode(bytes) }.mapError { $0 as! ReceiptError }
/// let json = VerifyReceiptResponse.make(for: outcome, expecting: .production).rendered(pretty: true)
/// ```
public enum VerifyReceiptResponse {
    /// verifyReceipt status codes this library can produce.
    public enum Status: Int64, Sendable {
        /// The receipt is valid.
        case valid = 0
        /// The receipt data was malformed or could not be read.
        case malformed = 21002
        /// The receipt could not be authenticated, or (genuine) its environment is unknown to a
        /// server that expects one.
        case notAuthenticated = 21003
        /// A sandbox (or StoreKit Testing) receipt sent to a server that expects production receipts.
        case sandboxReceiptInProduction = 21007
        /// A production receipt sent to a server that expects sandbox receipts.
        case productionReceiptInSandbox = 21008

        /// The status for a failure: unreadable input is 21002, failed verification 21003.
        ///
        /// Refusals of trust are 21003 even when they happen while the envelope is read:
        /// `tooManyCertificates` (a certificate bomb is a forgery attempt, not a damaged receipt)
        /// and `keyNotAllowed` (a key outside the key policy).
        public init(_ error: ReceiptError) {
            self = Self.verificationCodes.contains(error.code) ? .notAuthenticated : .malformed
        }

        private static let verificationCodes: Set<ReceiptError.Code> = [
            .signerCount, .signerNotFound, .invalidCertificate, .digestNotAllowed,
            .unsupportedSignatureAlgorithm, .messageDigestMismatch, .signatureInvalid, .untrustedChain,
            .missingAppleExtension, .certificateNotValidAtTime, .missingCreationDate, .invalidAnchor,
            .tooManyCertificates, .certificateTooLarge, .keyNotAllowed,
        ]
    }

    /// The whole response for the outcome of ``ReceiptVerifier/verifyAndDecode(_:)``.
    ///
    /// - Parameters:
    ///   - expected: the environment the server expects; a receipt from the other gives 21007
    ///     or 21008, as Apple's service does, and one whose type is unknown 21003. Nil accepts
    ///     all. The rule, and the `environment` field, are ``environmentCheck(_:expecting:)``'s.
    ///   - requestDate: the `request_date` to report.
    public static func make(for outcome: Result<VerifiedReceipt, ReceiptError>,
                            expecting expected: Environment? = nil,
                            requestDate: Date = Date()) -> JSONValue {
        let verified: VerifiedReceipt
        switch outcome {
        case .failure(let error): return .object([("status", .number(Status(error).rawValue))])
        case .success(let value): verified = value
        }
        let check = environmentCheck(verified.receipt.environment, expecting: expected)
        guard let environmentField = check.environmentField else {
            return .object([("status", .number(check.status.rawValue))])
        }
        return .object([
            ("status", .number(check.status.rawValue)),
            ("environment", .string(environmentField)),
            ("receipt", receipt(verified.receipt, requestDate: requestDate)),
        ])
    }

    /// The `receipt` object of a response.
    public static func receipt(_ receipt: Receipt, requestDate: Date = Date()) -> JSONValue {
        var members: [(String, JSONValue)] = []
        if let type = receipt.receiptType { members.append(("receipt_type", .string(type))) }
        if let id = receipt.appItemID {
            members.append(("adam_id", .number(id)))
            members.append(("app_item_id", .number(id)))
        }
        if let bundle = receipt.bundleID { members.append(("bundle_id", .string(bundle))) }
        if let version = receipt.applicationVersion { members.append(("application_version", .string(version))) }
        if let id = receipt.downloadID { members.append(("download_id", .number(id))) }
        if let id = receipt.versionExternalIdentifier { members.append(("version_external_identifier", .number(id))) }
        appendDate("receipt_creation_date", receipt.creationDate, to: &members)
        appendDate("request_date", requestDate, to: &members)
        appendDate("original_purchase_date", receipt.originalPurchaseDate, to: &members)
        if let version = receipt.originalApplicationVersion { members.append(("original_application_version", .string(version))) }
        appendDate("expiration_date", receipt.expirationDate, to: &members)
        members.append(("in_app", .array(receipt.inAppPurchases.map(inApp))))
        return .object(members)
    }

    /// One entry of `in_app`.
    public static func inApp(_ purchase: InAppPurchase) -> JSONValue {
        var members: [(String, JSONValue)] = []
        members.append(("quantity", .string(String(purchase.quantity ?? 1))))
        if let product = purchase.productID { members.append(("product_id", .string(product))) }
        if let id = purchase.transactionID { members.append(("transaction_id", .string(id))) }
        if let id = purchase.originalTransactionID { members.append(("original_transaction_id", .string(id))) }
        appendDate("purchase_date", purchase.purchaseDate, to: &members)
        appendDate("original_purchase_date", purchase.originalPurchaseDate, to: &members)
        appendDate("expires_date", purchase.expiresDate, to: &members)
        if let id = purchase.webOrderLineItemID, id != 0 {
            members.append(("web_order_line_item_id", .string(String(id))))
        }
        appendDate("cancellation_date", purchase.cancellationDate, to: &members)
        members.append(("is_trial_period", .string(purchase.isTrialPeriod == true ? "true" : "false")))
        // Apple reports the intro-offer flag for auto-renewable subscriptions only.
        if purchase.expiresDate != nil {
            members.append(("is_in_intro_offer_period", .string(purchase.isInIntroOfferPeriod == true ? "true" : "false")))
        }
        if let offer = purchase.promotionalOfferID, !offer.isEmpty {
            members.append(("promotional_offer_id", .string(offer)))
        }
        return .object(members)
    }

    private static func appendDate(_ key: String, _ date: Date?, to members: inout [(String, JSONValue)]) {
        guard let date else { return }
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let seconds = Int(milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000)
        members.append((key, .string(wallClock(seconds) + " Etc/GMT")))
        members.append((key + "_ms", .string(String(milliseconds))))
        members.append((key + "_pst", .string(wallClock(seconds + PacificTime.offset(atUTC: seconds)) + " America/Los_Angeles")))
    }

    /// `YYYY-MM-DD HH:MM:SS` of a count of seconds since 1970 (already shifted to local time).
    private static func wallClock(_ seconds: Int) -> String {
        CivilTime(secondsSince1970: seconds).text(separator: " ")
    }
}
