#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An App Store Server Notification V2: the payload of the body's `signedPayload` (Apple's
/// ResponseBodyV2DecodedPayload).
///
/// One of ``data``, ``summary``, ``externalPurchaseToken`` and ``appData`` says whose the
/// notification is; ``bundleId``, ``environment`` and ``appAppleId`` read it from whichever is there.
/// The nested tokens (`data.signedTransactionInfo`, ...) stay tokens here: the verifier checks them
/// with the same rules.
public struct ServerNotification: Sendable, Hashable, Codable, JSONWritable {
    /// The app and its app transaction.
    public var appData: NotificationAppData?
    /// The app, environment and nested tokens of most notifications.
    public var data: NotificationData?
    /// An external purchase token.
    public var externalPurchaseToken: ExternalPurchaseToken?
    /// What happened.
    public var notificationType: NotificationType?
    /// The notification's identifier (the same on Apple's retries).
    public var notificationUUID: String?
    /// When the App Store signed the notification: the instant certificates are judged at.
    public var signedDate: Date?
    /// More about what happened.
    public var subtype: NotificationSubtype?
    /// A summary of a renewal-date extension request.
    public var summary: NotificationSummary?
    /// The notification version (`2.0`).
    public var version: String?
    /// The members this library does not know, in the order signed; written back after the
    /// known ones, so nothing Apple sends is lost.
    public var unknownFields: [StrictJSON.Member] = []

    /// An empty value, every field absent.
    public init() {}

    /// Reads a notification payload as Apple signs it (dates in milliseconds since 1970).
    ///
    /// Throws ``ReceiptError/Code/wrongValueType``, naming the field and the JSON type found, when
    /// a documented field has another type (or an integer field a fraction or more than its bits);
    /// `null` counts as absent; members not documented are kept in ``unknownFields``.
    public init(payload: StrictJSON.Value) throws(ReceiptError) {
        self = try .read(payload)
    }

    /// Reads the JSON ``write(to:)`` writes (dates as RFC 3339 strings).
    public init(from decoder: any Decoder) throws { self = try .decoded(from: decoder) }

    /// Writes the JSON ``write(to:)`` writes.
    public func encode(to encoder: any Encoder) throws { try encodeWritten(to: encoder) }

    /// The known fields with Apple's names, keys sorted, dates as RFC 3339 with milliseconds,
    /// then ``unknownFields`` as signed.
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("appData", appData)
        json.member("data", data)
        json.member("externalPurchaseToken", externalPurchaseToken)
        json.member("notificationType", notificationType)
        json.member("notificationUUID", notificationUUID)
        json.member("signedDate", milliseconds: signedDate)
        json.member("subtype", subtype)
        json.member("summary", summary)
        json.member("version", version)
        json.members(unknownFields)
        json.endObject()
    }
}

extension ServerNotification: SignedPayloadObject {
    init(fields: inout PayloadFields) throws(ReceiptError) {
        notificationType = try fields.value("notificationType")
        subtype = try fields.value("subtype")
        notificationUUID = try fields.string("notificationUUID")
        data = try fields.object("data")
        summary = try fields.object("summary")
        externalPurchaseToken = try fields.object("externalPurchaseToken")
        appData = try fields.object("appData")
        version = try fields.string("version")
        signedDate = try fields.date("signedDate")
        unknownFields = fields.unknownFields
    }
}

extension ServerNotification {
    /// The bundle id of ``data``, ``summary``, ``externalPurchaseToken`` or ``appData``.
    public var bundleId: String? {
        data?.bundleId ?? summary?.bundleId ?? externalPurchaseToken?.bundleId ?? appData?.bundleId
    }

    /// The environment of ``data``, ``summary`` or ``appData`` (an external purchase token
    /// says none).
    public var environment: String? {
        data?.environment ?? summary?.environment ?? appData?.environment
    }

    /// The App Apple ID of ``data``, ``summary``, ``externalPurchaseToken`` or ``appData``.
    public var appAppleId: Int64? {
        data?.appAppleId ?? summary?.appAppleId ?? externalPurchaseToken?.appAppleId ?? appData?.appAppleId
    }
}
