#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReceiptParser

/// One try of Apple's to deliver a notification to the app's server (Apple's SendAttemptItem).
public struct SendAttemptItem: Sendable {
    /// When Apple tried.
    public let attemptDate: Date?
    /// How it went.
    public let sendAttemptResult: SendAttemptResult?
    /// Members Apple's model does not document, as sent.
    public let unknownFields: [StrictJSON.Member]

    init(fields: inout AnswerFields) throws(AppStoreAPIError) {
        attemptDate = try fields.date("attemptDate")
        sendAttemptResult = try fields.value("sendAttemptResult")
        unknownFields = fields.unknownFields
    }
}

/// How a delivery attempt went (`sendAttemptResult`). Values Apple does not document are kept.
public struct SendAttemptResult: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The value as sent.
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    /// The server answered 200.
    public static let success = SendAttemptResult(rawValue: "SUCCESS")
    /// The server did not answer in time.
    public static let timedOut = SendAttemptResult(rawValue: "TIMED_OUT")
    /// The TLS handshake failed.
    public static let tlsIssue = SendAttemptResult(rawValue: "TLS_ISSUE")
    /// The server redirected in a circle.
    public static let circularRedirect = SendAttemptResult(rawValue: "CIRCULAR_REDIRECT")
    /// No answer.
    public static let noResponse = SendAttemptResult(rawValue: "NO_RESPONSE")
    /// The connection failed.
    public static let socketIssue = SendAttemptResult(rawValue: "SOCKET_ISSUE")
    /// The answer's charset is not supported.
    public static let unsupportedCharset = SendAttemptResult(rawValue: "UNSUPPORTED_CHARSET")
    /// The answer was not valid HTTP.
    public static let invalidResponse = SendAttemptResult(rawValue: "INVALID_RESPONSE")
    /// The server closed the connection early.
    public static let prematureClose = SendAttemptResult(rawValue: "PREMATURE_CLOSE")
    /// The server answered with a status other than 200.
    public static let unsuccessfulHTTPResponseCode = SendAttemptResult(rawValue: "UNSUCCESSFUL_HTTP_RESPONSE_CODE")
    /// Something else.
    public static let other = SendAttemptResult(rawValue: "OTHER")

    public var description: String { rawValue }
}
