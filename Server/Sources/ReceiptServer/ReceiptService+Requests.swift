import Hummingbird
import Logging
import NIOCore

// How a route reads its request and waits for its verification: the body read whole within the
// size limit, the verification run under the gate.

extension ReceiptService {
    /// The whole body, refusing more than ``ServerConfiguration/maximumBodySize`` bytes with 413
    /// before reading them.
    func readBody(_ request: Request) async throws -> [UInt8] {
        let limit = configuration.maximumBodySize
        do {
            let buffer = try await request.body.collect(upTo: limit)
            return Array(buffer.readableBytesView)
        } catch is NIOTooManyBytesError {
            throw Refusal.bodyTooLarge(limit: limit)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw Refusal.bodyTooLarge(limit: limit)
        }
    }

    /// `route`'s verification of its body: read within the size limit, `verify` (which logs)
    /// run under the verification gate; ``Refusal/busy(_:)`` when no slot freed up in time.
    func gatedVerification<Outcome: Sendable>(
        of request: Request, _ context: some RequestContext, route: String,
        _ verify: @escaping @Sendable (_ body: [UInt8], _ logger: Logger) -> Outcome
    ) async throws -> Outcome {
        let body = try await readBody(request)
        let logger = context.logger
        guard let outcome = await gated(body, route: route, { verify(body, logger) }) else { throw Refusal.busy(gate) }
        return outcome
    }
}
