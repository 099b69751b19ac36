#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReceiptParser

/// The App Store Server API's calls. Each returns only answers whose signed members all
/// verified; calls that page return every page, in order, and stop with
/// ``AppStoreAPIError/unreadable(host:reason:)`` when a revision or page token repeats.
extension AppStoreServerAPIClient {
    /// Get Transaction Info: one transaction, `signedTransactionInfo`.
    public func transactionInfo(_ transactionId: String) async throws(AppStoreAPIError) -> TransactionInfoResponse {
        try await call(Request(endpoint: .transactionInfo, method: .GET, path: "/inApps/v1/transactions/\(Self.escape(transactionId))"))
    }

    /// Get Transaction History (v2): every page of the customer's transactions.
    public func transactionHistory(_ transactionId: String, query: TransactionHistoryQuery = TransactionHistoryQuery())
        async throws(AppStoreAPIError) -> [HistoryResponse] {
        try await pages { revision in
            Request(endpoint: .transactionHistory, method: .GET, path: "/inApps/v2/history/\(Self.escape(transactionId))",
                    query: query.parameters + (revision.map { [("revision", $0)] } ?? []))
        }
    }

    /// Get All Subscription Statuses: each subscription group's latest transaction and renewal info.
    /// - Parameter status: only subscriptions in these statuses (1 active … 5 revoked).
    public func subscriptionStatuses(_ transactionId: String, status: [Int] = []) async throws(AppStoreAPIError) -> StatusResponse {
        try await call(Request(endpoint: .subscriptionStatuses, method: .GET, path: "/inApps/v1/subscriptions/\(Self.escape(transactionId))",
                               query: status.map { ("status", String($0)) }))
    }

    /// Get Refund History (v2): every page of refunded transactions.
    public func refundHistory(_ transactionId: String) async throws(AppStoreAPIError) -> [RefundHistoryResponse] {
        try await pages { revision in
            Request(endpoint: .refundHistory, method: .GET, path: "/inApps/v2/refund/lookup/\(Self.escape(transactionId))",
                    query: revision.map { [("revision", $0)] } ?? [])
        }
    }

    /// Look Up Order ID: the transactions of an order id from the customer's Apple receipt email
    /// (`status` 0 valid, 1 invalid). Order ids exist in production only: `auto` asks production only.
    public func lookUpOrder(_ orderId: String) async throws(AppStoreAPIError) -> OrderLookupResponse {
        try await call(Request(endpoint: .orderLookup, method: .GET, path: "/inApps/v1/lookup/\(Self.escape(orderId))",
                               fallsBackToSandbox: false))
    }

    /// Get Notification History: every page of the notifications Apple sent (or tried to) in the window.
    public func notificationHistory(_ request: NotificationHistoryRequest) async throws(AppStoreAPIError) -> [NotificationHistoryResponse] {
        try await pages { token in
            notificationHistoryRequest(request, paginationToken: token)
        }
    }

    /// One page of Get Notification History, for callers that keep their place between pages.
    public func notificationHistoryPage(_ request: NotificationHistoryRequest, paginationToken: String?) async throws(AppStoreAPIError) -> NotificationHistoryResponse {
        try await call(notificationHistoryRequest(request, paginationToken: paginationToken))
    }

    private func notificationHistoryRequest(_ request: NotificationHistoryRequest, paginationToken: String?) -> Request {
        Request(endpoint: .notificationHistory, method: .POST, path: "/inApps/v1/notifications/history",
                query: paginationToken.map { [("paginationToken", $0)] } ?? [], body: request.json)
    }

    /// Request a Test Notification: Apple sends a TEST notification to the app's URL; the
    /// answer's `testNotificationToken` asks for its status.
    public func requestTestNotification() async throws(AppStoreAPIError) -> SendTestNotificationResponse {
        try await call(Request(endpoint: .requestTestNotification, method: .POST, path: "/inApps/v1/notifications/test"))
    }

    /// Get Test Notification Status: the TEST notification (`signedPayload`) and its send attempts.
    public func testNotificationStatus(_ token: String) async throws(AppStoreAPIError) -> CheckTestNotificationResponse {
        try await call(Request(endpoint: .testNotificationStatus, method: .GET, path: "/inApps/v1/notifications/test/\(Self.escape(token))"))
    }

    /// Get App Transaction Info: the customer's app transaction, `signedAppTransactionInfo`.
    public func appTransactionInfo(_ transactionId: String) async throws(AppStoreAPIError) -> AppTransactionInfoResponse {
        try await call(Request(endpoint: .appTransactionInfo, method: .GET,
                               path: "/inApps/v1/transactions/appTransactions/\(Self.escape(transactionId))"))
    }

    /// Send Consumption Information (v2), answering a CONSUMPTION_REQUEST notification.
    public func sendConsumptionInformation(_ transactionId: String, _ request: ConsumptionRequest) async throws(AppStoreAPIError) {
        _ = try await send(Request(endpoint: .consumptionInformation, method: .PUT,
                                   path: "/inApps/v2/transactions/consumption/\(Self.escape(transactionId))", body: request.json))
    }

    /// Extend a Subscription Renewal Date: `success`, `effectiveDate` and the ids it extended.
    public func extendRenewalDate(_ originalTransactionId: String, _ request: ExtendRenewalDateRequest) async throws(AppStoreAPIError) -> ExtendRenewalDateResponse {
        try await call(Request(endpoint: .extendRenewalDate, method: .PUT,
                               path: "/inApps/v1/subscriptions/extend/\(Self.escape(originalTransactionId))", body: request.json))
    }

    /// Extend Subscription Renewal Dates for All Active Subscribers of a product: Apple starts the
    /// work and answers its `requestIdentifier`.
    public func massExtendRenewalDate(_ request: MassExtendRenewalDateRequest) async throws(AppStoreAPIError) -> MassExtendRenewalDateResponse {
        try await call(Request(endpoint: .massExtendRenewalDate, method: .POST, path: "/inApps/v1/subscriptions/extend/mass", body: request.json))
    }

    /// Get Status of Subscription Renewal Date Extensions: `complete`, `succeededCount`, `failedCount`.
    public func massExtensionStatus(productId: String, requestIdentifier: String) async throws(AppStoreAPIError) -> MassExtendRenewalDateStatusResponse {
        try await call(Request(endpoint: .massExtensionStatus, method: .GET,
                               path: "/inApps/v1/subscriptions/extend/mass/\(Self.escape(productId))/\(Self.escape(requestIdentifier))"))
    }

    /// Set App Account Token: binds `appAccountToken` (a UUID) to the original transaction, so
    /// its later renewals carry it.
    public func setAppAccountToken(_ originalTransactionId: String, appAccountToken: UUID) async throws(AppStoreAPIError) {
        var json = JSONWriter()
        json.beginObject()
        json.key("appAccountToken"); json.string(appAccountToken.uuidString.lowercased())
        json.endObject()
        _ = try await send(Request(endpoint: .setAppAccountToken, method: .PUT,
                                   path: "/inApps/v1/transactions/\(Self.escape(originalTransactionId))/appAccountToken", body: json.finish()))
    }

    /// One call, its answer read as `Response`.
    private func call<Response: AppStoreResponse>(_ request: Request) async throws(AppStoreAPIError) -> Response {
        try Response(answer: try await send(request))
    }

    /// Every page of a paged call: asks again from the answer's position while `hasMore` is
    /// true. All pages come from the environment that answered the first.
    private func pages<Response: PagedAppStoreResponse>(request: (String?) -> Request) async throws(AppStoreAPIError) -> [Response] {
        let waitEnd = clock.now().addingTimeInterval(configuration.maxWait)
        var pages: [Response] = []
        var seen: Set<String> = []
        var position: String?
        while true {
            let page = try Response(answer: try await send(request(position), waitEnd: waitEnd, pinnedTo: pages.first?.answer.environment))
            pages.append(page)
            guard page.hasMore else { return pages }
            guard let next = page.position else {
                throw .unreadable(host: page.answer.host, reason: "hasMore is true but the answer has no \(Response.positionName)")
            }
            guard seen.insert(next).inserted else {
                throw .unreadable(host: page.answer.host, reason: "the \(Response.positionName) \(next) repeats after \(pages.count) pages: the walk stops")
            }
            position = next
        }
    }
}
