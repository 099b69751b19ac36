import AppStoreServerAPI
import ArgumentParser
import Foundation
import ReceiptParser

/// `receipt-dump api`: what support staff ask Apple, with the team's key; every signed value in
/// an answer verified before it is shown. receipt-dump runs this program for `receipt-dump api …`.
@main
struct ReceiptDumpAPI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receipt-dump api",
        abstract: "Ask Apple's App Store Server API, and verify every signed value it answers.",
        discussion: """
        Credentials: --key-file (the .p8), --key-id, --issuer-id, --bundle-id, or APP_STORE_KEY_FILE, \
        APP_STORE_KEY_ID, APP_STORE_ISSUER_ID, APP_STORE_BUNDLE_ID. Requests stay within Apple's \
        per-endpoint budgets (a tenth in sandbox), wait out a 429's Retry-After, and retry 5xx and \
        Apple's retryable errors with backoff.

        Exit status: 0 answered and every signed value verified; 1 a signed value not verified, or \
        Apple refused the request (its errorCode and errorMessage shown); 2 an answer that cannot be \
        read (not JSON, over --max-answer-bytes, a malformed token, a repeating page); 3 no answer \
        (connection, deadline, retries or --max-wait used up); 64 usage.
        """,
        subcommands: [Transaction.self, History.self, Subscriptions.self, Refunds.self, Order.self, Notifications.self,
                      AppTransaction.self, TestNotification.self, Extend.self]
    )

    struct Transaction: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Get Transaction Info: one transaction.")
        @Argument(help: "A transaction id.") var id: String
        @OptionGroup var options: APIOptions
        func run() async throws {
            try await APIOutput.run(options, call: "transaction \(id)") { client throws(AppStoreAPIError) in [try await client.transactionInfo(id).answer] }
        }
    }

    struct History: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Get Transaction History: every transaction of the customer, every page.")
        @Argument(help: "Any transaction id of the customer.") var id: String
        @OptionGroup var options: APIOptions
        func run() async throws {
            try await APIOutput.run(options, call: "history \(id)") { client throws(AppStoreAPIError) in try await client.transactionHistory(id).map(\.answer) }
        }
    }

    struct Subscriptions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Get All Subscription Statuses: each group's latest transaction and renewal info.")
        @Argument(help: "Any transaction id of the customer.") var id: String
        @OptionGroup var options: APIOptions
        func run() async throws {
            try await APIOutput.run(options, call: "subscriptions \(id)") { client throws(AppStoreAPIError) in [try await client.subscriptionStatuses(id).answer] }
        }
    }

    struct Refunds: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Get Refund History: the customer's refunded transactions, every page.")
        @Argument(help: "Any transaction id of the customer.") var id: String
        @OptionGroup var options: APIOptions
        func run() async throws {
            try await APIOutput.run(options, call: "refunds \(id)") { client throws(AppStoreAPIError) in try await client.refundHistory(id).map(\.answer) }
        }
    }

    struct Order: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Look Up Order ID: what the order in the customer's Apple email bought (production only).")
        @Argument(help: ArgumentHelp("The order id (MXXXXXXXXX).", valueName: "ORDER_ID")) var orderID: String
        @OptionGroup var options: APIOptions
        func run() async throws {
            try await APIOutput.run(options, call: "order \(orderID)") { client throws(AppStoreAPIError) in
                let order = try await client.lookUpOrder(orderID)
                // Apple says the order id is not valid (status 1): a refusal, not an empty answer.
                guard order.status == .valid else {
                    throw .refused(host: order.answer.host, status: 200, errorCode: nil, errorMessage: "status \(order.status): the order id is not valid")
                }
                return [order.answer]
            }
        }
    }

    struct Notifications: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Get Notification History: what Apple sent (or tried to) between two instants, every page.")
        @Option(help: ArgumentHelp("The window's start (RFC 3339; at most 180 days back).", valueName: "T")) var start: String
        @Option(help: ArgumentHelp("The window's end (RFC 3339).", valueName: "T")) var end: String
        @Flag(name: .customLong("only-failures"), help: "Only notifications whose delivery failed.") var onlyFailures = false
        @Option(name: .customLong("transaction-id"), help: ArgumentHelp("Only notifications about this transaction.", valueName: "ID")) var transactionID: String?
        @OptionGroup var options: APIOptions

        func validate() throws {
            let from = try RFC3339.instant(start, option: "--start")
            let to = try RFC3339.instant(end, option: "--end")
            guard from < to else { throw ValidationError("--start must be before --end.") }
        }

        func run() async throws {
            let request = NotificationHistoryRequest(startDate: RFC3339.date(from: start)!, endDate: RFC3339.date(from: end)!,
                                                     transactionId: transactionID, onlyFailures: onlyFailures)
            try await APIOutput.run(options, call: "notifications") { client throws(AppStoreAPIError) in try await client.notificationHistory(request).map(\.answer) }
        }
    }

    struct AppTransaction: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "app-transaction", abstract: "Get App Transaction Info: the customer's purchase of the app.")
        @Argument(help: "Any transaction id of the customer.") var id: String
        @OptionGroup var options: APIOptions
        func run() async throws {
            try await APIOutput.run(options, call: "app-transaction \(id)") { client throws(AppStoreAPIError) in [try await client.appTransactionInfo(id).answer] }
        }
    }

    struct TestNotification: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "test-notification",
                                                        abstract: "Request a Test Notification, then show its status (Get Test Notification Status).")
        @OptionGroup var options: APIOptions
        func run() async throws {
            try await APIOutput.run(options, call: "test-notification") { client throws(AppStoreAPIError) in
                let requested = try await client.requestTestNotification()
                return [requested.answer, try await client.testNotificationStatus(requested.testNotificationToken).answer]
            }
        }
    }

    struct Extend: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Extend a Subscription Renewal Date.")
        @Argument(help: ArgumentHelp("The subscription's original transaction id.", valueName: "ORIGINAL_ID")) var originalID: String
        @Option(help: ArgumentHelp("Days to extend by (1 to 90).", valueName: "N")) var days: Int
        @Option(help: ArgumentHelp("0 undeclared, 1 customer satisfaction, 2 other, 3 service issue or outage.", valueName: "CODE")) var reason: Int
        @Option(name: .customLong("request-id"), help: ArgumentHelp("A UUID that makes the request idempotent (a new one by default).", valueName: "UUID"))
        var requestID: String?
        @OptionGroup var options: APIOptions

        func validate() throws {
            guard (1...90).contains(days) else { throw ValidationError("--days takes 1 to 90.") }
            guard (0...3).contains(reason) else { throw ValidationError("--reason takes 0, 1, 2 or 3.") }
            if let requestID, UUID(uuidString: requestID) == nil { throw ValidationError("--request-id takes a UUID.") }
        }

        func run() async throws {
            let request = ExtendRenewalDateRequest(extendByDays: days, extendReasonCode: reason,
                                                   requestIdentifier: requestID?.lowercased() ?? UUID().uuidString.lowercased())
            try await APIOutput.run(options, call: "extend \(originalID)") { client throws(AppStoreAPIError) in
                let extended = try await client.extendRenewalDate(originalID, request)
                guard extended.success else {
                    throw .refused(host: extended.answer.host, status: 200, errorCode: nil,
                                   errorMessage: "success is not true: Apple did not extend the renewal date")
                }
                return [extended.answer]
            }
        }
    }
}
