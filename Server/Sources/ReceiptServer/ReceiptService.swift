import Dispatch
import Logging
import NIOCore
import ReceiptParser

/// What the server does with a receipt, independent of HTTP: verify, apply the server's rules,
/// and shape the answer.
struct ReceiptService: Sendable {
    let configuration: ServerConfiguration
    /// Where verifications run: off the event loops, a bounded number at once.
    let gate: VerificationGate
    /// What the server counts (``ServerMetrics``).
    let metrics: ServerMetrics

    init(configuration: ServerConfiguration, metrics: ServerMetrics = ServerMetrics()) {
        self.configuration = configuration
        self.metrics = metrics
        gate = VerificationGate(limit: configuration.maximumConcurrentVerifications,
                                timeout: .milliseconds(Int64(configuration.verificationTimeoutSeconds * 1000)),
                                waits: metrics.gateWaits, refusals: metrics.gateRefusals)
    }

    /// verifyReceipt's status for "the receipt server was temporarily unable to provide the
    /// receipt", answered when no verification slot frees up within the time budget.
    static let busyStatus: Int64 = 21005

    /// `work` (which reads `body`) run under the verification gate, its time in the slot
    /// recorded for `route`; nil when no slot freed up within the time budget.
    func gated<Result: Sendable>(_ body: [UInt8], route: String, _ work: @escaping @Sendable () -> Result) async -> Result? {
        await gate.run(onTheCallersThread: body.count <= configuration.inlineBodySize) { [configuration, metrics] in
            let start = DispatchTime.now().uptimeNanoseconds
            configuration.beforeVerification?(body)
            let result = work()
            metrics.recordVerification(route: route, nanoseconds: Int64(DispatchTime.now().uptimeNanoseconds - start))
            return result
        }
    }

    /// A receipt's fate on this server.
    enum Outcome: Sendable {
        /// Verified, and for an app and the environment this server serves.
        case accepted(VerifiedReceipt)
        /// Genuine, but refused by the server's ``ServerConfiguration/acceptance``: the library's
        /// `appIdentityMismatch` or `environmentMismatch`, with verifyReceipt's status for it
        /// (21003, or 21007 / 21008 by the one environment rule).
        case notAccepted(VerifiedReceipt, ReceiptError, VerifyReceiptResponse.Status)
        /// Unreadable or not genuine.
        case rejected(ReceiptError)
    }

    func verify(_ input: [UInt8]) -> Outcome {
        do {
            let verified = try configuration.verifier.inspect(input, options: .verifiedOnly).verified()
            guard let refusal = configuration.acceptance.refusal(of: AcceptanceSubject(verified.receipt)) else {
                return .accepted(verified)
            }
            let status = refusal.code == .environmentMismatch
                ? VerifyReceiptResponse.environmentCheck(verified.receipt.environment, expecting: configuration.expectedEnvironment).status
                : .notAuthenticated
            return .notAccepted(verified, refusal, status)
        } catch {
            return .rejected(error)
        }
    }

    /// `POST /verifyReceipt`: Apple's request body in, Apple's response format out (compact
    /// JSON). A body that is not a request (malformed JSON, duplicate keys, no `receipt-data`)
    /// gets 21002.
    func verifyReceipt(body: [UInt8], logger: Logger) -> ByteBuffer {
        let request: VerifyReceiptRequest
        do {
            request = try VerifyReceiptRequest.parse(body)
        } catch {
            log(.rejected(error), route: "verifyReceipt", logger: logger)
            return ByteBuffer { VerifyReceiptResponse.write(for: .failure(error), to: &$0) }
        }
        let outcome = verify(request.receiptData)
        log(outcome, route: "verifyReceipt", logger: logger)
        switch outcome {
        case .rejected(let error):
            return ByteBuffer { VerifyReceiptResponse.write(for: .failure(error), to: &$0) }
        case .notAccepted(_, _, let status):
            return ByteBuffer { VerifyReceiptResponse.write(status, to: &$0) }
        case .accepted(var verified):
            if request.excludeOldTransactions {
                verified = VerifiedReceipt(receipt: verified.receipt.excludingOldTransactions(), verification: verified.verification)
            }
            return ByteBuffer { [expected = configuration.expectedEnvironment] in
                VerifyReceiptResponse.write(for: .success(verified), expecting: expected, to: &$0)
            }
        }
    }

    /// One record per receipt, and its outcome counted for `route`.
    func log(_ outcome: Outcome, route: String, logger: Logger) {
        metrics.countVerification(route: route, code: outcome.refusal?.code ?? "verified")
        switch outcome {
        case .accepted(let verified):
            logger.info("receipt verified", metadata: [
                "route": .string(route), "bundle_id": .string(verified.receipt.bundleID ?? "-"),
                "environment": .string(verified.receipt.environment.rawValue),
                "in_app": .stringConvertible(verified.receipt.inAppPurchases.count),
            ])
        case .notAccepted(let verified, let error, let status):
            logger.notice("receipt rejected", metadata: [
                "route": .string(route), "code": .string(error.code.name), "status": .stringConvertible(status.rawValue),
                "bundle_id": .string(verified.receipt.bundleID ?? "-"), "receipt_type": .string(verified.receipt.receiptType ?? "-"),
                "reason": .string(error.reason),
            ])
        case .rejected(let error):
            logger.notice("receipt rejected", metadata: [
                "route": .string(route), "code": .string(error.code.name), "reason": .string(error.reason),
            ])
        }
    }
}

extension ReceiptService.Outcome {
    /// Why a receipt is refused (unreadable, not genuine, or genuine but refused by this server's
    /// rules), the same on every route and on the page; nil when it is accepted.
    var refusal: Refusal? {
        switch self {
        case .rejected(let error):
            return Refusal(error)
        case .notAccepted(_, let error, let status):
            // 422: genuine, but not for this server.
            return Refusal(.unprocessableContent, code: error.code.name, reason: error.reason, receiptStatus: status.rawValue, verdict: .notAccepted)
        case .accepted:
            return nil
        }
    }
}
