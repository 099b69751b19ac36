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
/// let json = VerifyReceiptResponse.text(for: outcome, expecting: .production)
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

        /// The status for a failure: unreadable input is 21002, a trust failure
        /// (``ReceiptError/Code/isTrustFailure``) 21003.
        public init(_ error: ReceiptError) {
            self = error.code.isTrustFailure ? .notAuthenticated : .malformed
        }
    }

    /// The whole response for the outcome of ``ReceiptVerifier/verifyAndDecode(_:)``, as text.
    ///
    /// - Parameters:
    ///   - expected: the environment the server expects; a receipt from the other gives 21007
    ///     or 21008, as Apple's service does, and one whose type is unknown 21003. Nil accepts
    ///     all. The rule, and the `environment` field, are ``environmentCheck(_:expecting:)``'s.
    ///   - requestDate: the `request_date` to report.
    ///   - layout: compact for programs, indented for people.
    public static func text(for outcome: Result<VerifiedReceipt, ReceiptError>,
                            expecting expected: Environment? = nil,
                            requestDate: Date = Date(),
                            layout: JSONWriter.Layout = .compact) -> String {
        var json = JSONWriter(layout: layout, capacity: 4096)
        write(for: outcome, expecting: expected, requestDate: requestDate, to: &json)
        return json.finishString()
    }

    /// Writes the whole response for the outcome of ``ReceiptVerifier/verifyAndDecode(_:)``;
    /// the parameters are ``text(for:expecting:requestDate:layout:)``'s.
    public static func write(for outcome: Result<VerifiedReceipt, ReceiptError>,
                             expecting expected: Environment? = nil,
                             requestDate: Date = Date(),
                             to json: inout JSONWriter) {
        let verified: VerifiedReceipt
        switch outcome {
        case .failure(let error): return write(Status(error), to: &json)
        case .success(let value): verified = value
        }
        let check = environmentCheck(verified.receipt.environment, expecting: expected)
        guard let environmentField = check.environmentField else { return write(check.status, to: &json) }
        json.beginObject()
        json.member("status", check.status.rawValue)
        json.member("environment", environmentField)
        json.key("receipt")
        writeReceipt(verified.receipt, requestDate: requestDate, to: &json)
        json.endObject()
    }

    /// Writes a response that is a status alone: `{"status":21003}`.
    public static func write(_ status: Status, to json: inout JSONWriter) {
        json.beginObject()
        json.member("status", status.rawValue)
        json.endObject()
    }

    /// Writes the `receipt` object of a response.
    public static func writeReceipt(_ receipt: Receipt, requestDate: Date = Date(), to json: inout JSONWriter) {
        json.beginObject()
        json.member("receipt_type", receipt.receiptType)
        if let id = receipt.appItemID {
            json.member("adam_id", id)
            json.member("app_item_id", id)
        }
        json.member("bundle_id", receipt.bundleID)
        json.member("application_version", receipt.applicationVersion)
        json.member("download_id", receipt.downloadID)
        json.member("version_external_identifier", receipt.versionExternalIdentifier)
        writeDate("receipt_creation_date", receipt.creationDate, to: &json)
        writeDate("request_date", requestDate, to: &json)
        writeDate("original_purchase_date", receipt.originalPurchaseDate, to: &json)
        json.member("original_application_version", receipt.originalApplicationVersion)
        writeDate("expiration_date", receipt.expirationDate, to: &json)
        json.key("in_app")
        json.beginArray()
        for purchase in receipt.inAppPurchases { writeInApp(purchase, to: &json) }
        json.endArray()
        json.endObject()
    }

    /// Writes one entry of `in_app`.
    public static func writeInApp(_ purchase: InAppPurchase, to json: inout JSONWriter) {
        json.beginObject()
        json.key("quantity")
        decimalString(purchase.quantity ?? 1, to: &json)
        json.member("product_id", purchase.productID)
        json.member("transaction_id", purchase.transactionID)
        json.member("original_transaction_id", purchase.originalTransactionID)
        writeDate("purchase_date", purchase.purchaseDate, to: &json)
        writeDate("original_purchase_date", purchase.originalPurchaseDate, to: &json)
        writeDate("expires_date", purchase.expiresDate, to: &json)
        if let id = purchase.webOrderLineItemID, id != 0 {
            json.key("web_order_line_item_id")
            decimalString(id, to: &json)
        }
        writeDate("cancellation_date", purchase.cancellationDate, to: &json)
        json.member("is_trial_period", purchase.isTrialPeriod == true ? "true" : "false")
        // Apple reports the intro-offer flag for auto-renewable subscriptions only.
        if purchase.expiresDate != nil {
            json.member("is_in_intro_offer_period", purchase.isInIntroOfferPeriod == true ? "true" : "false")
        }
        if let offer = purchase.promotionalOfferID, !offer.isEmpty {
            json.member("promotional_offer_id", offer)
        }
        json.endObject()
    }

    /// Apple's date triplet: `key` (`2020-07-14 19:36:40 Etc/GMT`), `key_ms` (milliseconds, as
    /// a string) and `key_pst` (the wall clock in America/Los_Angeles).
    private static func writeDate(_ key: StaticString, _ date: Date?, to json: inout JSONWriter) {
        guard let date else { return }
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let seconds = Int(milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000)
        json.key(key)
        wallClock(seconds, zone: " Etc/GMT", to: &json)
        json.key(key, suffix: "_ms")
        decimalString(milliseconds, to: &json)
        json.key(key, suffix: "_pst")
        wallClock(seconds + PacificTime.offset(atUTC: seconds), zone: " America/Los_Angeles", to: &json)
    }

    /// `YYYY-MM-DD HH:MM:SS` of a count of seconds since 1970 (already shifted to local time),
    /// then `zone`, as a string.
    private static func wallClock(_ seconds: Int, zone: StaticString, to json: inout JSONWriter) {
        json.asciiString(maximumCount: CivilTime.maximumUTF8Count + zone.utf8CodeUnitCount) { destination in
            let length = CivilTime(secondsSince1970: seconds).write(separator: UInt8(ascii: " "), into: destination)
            (destination + length).initialize(from: zone.utf8Start, count: zone.utf8CodeUnitCount)
            return length + zone.utf8CodeUnitCount
        }
    }

    /// A number written as a string, as verifyReceipt writes most of them.
    private static func decimalString(_ value: Int64, to json: inout JSONWriter) {
        json.asciiString(maximumCount: 20) { JSONWriter.decimal(value, into: $0) }
    }
}
