import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ReceiptLedger
import ServiceLifecycle

/// Posts the ledger's webhook events, a service of the application: leases the due events that
/// are first in line for their user, posts each signed (Standard Webhooks), and records the
/// attempt. Only a 2xx answered within `attemptTimeout` delivers; anything else is tried again on
/// the retry schedule, then failed for good. An event stays in the database until delivered, so a
/// server killed at any moment sends it again when it (or another on the same ledger) comes back,
/// with the same `webhook-id`; several servers on one ledger lease each event to one of them.
public struct WebhookDelivery: Service {
    let ledger: Ledger
    let configuration: WebhookConfiguration
    let logger: Logger
    /// This worker's name on its leases: unique per process.
    let worker = "receipt-server-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))"

    /// How many events one worker sends at once (all of different users).
    static let batch = 16
    /// The most of an answer read (and ignored).
    static let answerLimit = 64 * 1024

    public init(ledger: Ledger, configuration: WebhookConfiguration, logger: Logger) {
        self.ledger = ledger
        self.configuration = configuration
        self.logger = logger
    }

    public func run() async throws {
        var clientConfiguration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        clientConfiguration.timeout = .init(connect: .seconds(Int64(configuration.attemptTimeout)),
                                            read: .seconds(Int64(configuration.attemptTimeout)))
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: clientConfiguration,
                                backgroundActivityLogger: logger)
        await cancelWhenGracefulShutdown {
            var sweep = StrandedEventSweep(interval: configuration.strandedEventSweepInterval)
            while !Task.isCancelled {
                await sweep.step(on: ledger, logger: logger)
                switch await deliverDueEvents(with: client) {
                case 0?: try? await Task.sleep(for: .milliseconds(Int64(configuration.pollInterval * 1000)))
                case nil: try? await Task.sleep(for: .seconds(5))  // the ledger is down: no need to ask twice a second
                default: break
                }
            }
        }
        try? await client.shutdown()
    }

    /// One round: the due events leased and sent; answers how many, nil when the outbox cannot be read.
    func deliverDueEvents(with client: HTTPClient) async -> Int? {
        let events: [WebhookEvent]
        do {
            events = try await ledger.claimWebhookEvents(for: worker, lease: configuration.lease, limit: Self.batch)
        } catch {
            logger.warning("webhooks: cannot read the outbox", metadata: ["error": "\(error)"])
            return nil
        }
        // Sent at once (each of another user), their outcomes recorded in one write.
        let attempts = await withTaskGroup(of: WebhookAttempt.self) { group in
            for event in events {
                group.addTask { await deliver(event, with: client) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        if !attempts.isEmpty {
            do {
                try await ledger.finishWebhookAttempts(attempts, by: worker)
            } catch {
                // The leases run out and the events are sent again: at least once.
                logger.warning("webhooks: cannot record attempts", metadata: ["error": "\(error)"])
            }
        }
        return events.count
    }

    private func deliver(_ event: WebhookEvent, with client: HTTPClient) async -> WebhookAttempt {
        let timestamp = Int64(ledger.now().timeIntervalSince1970)
        var request = HTTPClientRequest(url: configuration.url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "receipt-server")
        request.headers.add(name: "webhook-id", value: event.id)
        request.headers.add(name: "webhook-timestamp", value: String(timestamp))
        request.headers.add(name: "webhook-signature", value: configuration.signer.signature(id: event.id, timestamp: timestamp, body: event.body))
        request.body = .bytes(ByteBuffer(bytes: event.body))
        var failure: String?
        do {
            let response = try await client.execute(request, timeout: .milliseconds(Int64(configuration.attemptTimeout * 1000)))
            _ = try? await response.body.collect(upTo: Self.answerLimit)
            if !(200..<300).contains(response.status.code) { failure = "answered HTTP \(response.status.code)" }
        } catch {
            failure = "no answer: \(error)"
        }
        // Tried once, then once after each wait of the schedule.
        let retryAt = failure == nil || event.attempts >= configuration.retrySchedule.count
            ? nil : ledger.now().addingTimeInterval(configuration.retrySchedule[event.attempts])
        if let failure {
            logger.notice("webhook not delivered", metadata: ["id": "\(event.id)", "type": "\(event.type)", "error": "\(failure)",
                                                             "final": "\(retryAt == nil)"])
        }
        return WebhookAttempt(id: event.id, delivered: failure == nil, error: failure, retryAt: retryAt)
    }
}
