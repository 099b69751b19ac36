import Foundation
import Hummingbird
import ReceiptLedger
import ReceiptParser

// The support page's ledger lookup: a user's credits and the missed orders. The ledger token is
// asked for in the form and checked on the server, so the page shows nothing of the ledger to
// someone who only reaches the server; it is never written back into the page.

extension SupportPage {
    /// What the lookup shows under its form.
    enum LedgerLookup: Sendable {
        /// The form alone.
        case form
        /// Nothing shown, and why (a wrong token, a bad user id, the database unavailable).
        case refused(String)
        /// The credits of `user` (none asked when nil) and the missed orders, oldest first; and
        /// what Apple says of an order id, when one was asked.
        case shown(user: String?, credits: [Credit], missedOrders: [SeenTransaction], order: OrderLookup?)
    }

    /// An order id from the customer's Apple email, looked up with the server's App Store key.
    enum OrderLookup: Sendable {
        /// Apple's verified transactions of the order.
        case found(orderId: String, [SignedTransaction])
        /// Apple says the order id is not valid (`status` 1).
        case invalid(orderId: String)
        /// Apple could not be asked, or its answer did not verify: why.
        case failed(orderId: String, String)
    }

    /// The most rows the page lists of each.
    static let ledgerRows = 200

    static func ledgerSection(_ lookup: LedgerLookup) -> String {
        var text = """
        <h2>Credit ledger</h2>
        <form method="post" action="/ledger">
        <label for="ledger-token">Ledger token</label> <input id="ledger-token" name="token" type="password" autocomplete="off">
        <label for="ledger-user">User id (optional)</label> <input id="ledger-user" name="user" type="text">
        <label for="ledger-order">Order ID (optional, asks Apple)</label> <input id="ledger-order" name="order" type="text">
        <button type="submit">Look up</button>
        </form>

        """
        switch lookup {
        case .form:
            break
        case .refused(let reason):
            text += "<p id=\"ledger-error\" class=\"failed\">\(escape(reason))</p>\n"
        case .shown(let user, let credits, let missedOrders, let order):
            switch order {
            case .found(let orderId, let transactions)?:
                text += "<h3>Order \(cell(orderId)): \(transactions.count) transactions, verified</h3>\n"
                text += table(id: "order", ["Transaction", "Original", "Product", "Environment", "Purchased", "Expires", "Revoked at"], transactions.map { t in
                    [t.transactionId, t.originalTransactionId, t.productId, t.environment, date(t.purchaseDate), date(t.expiresDate), date(t.revocationDate)]
                })
            case .invalid(let orderId)?:
                text += "<p id=\"order-error\" class=\"failed\">Apple says order \(cell(orderId)) is not a valid order id.</p>\n"
            case .failed(let orderId, let reason)?:
                text += "<p id=\"order-error\" class=\"failed\">Order \(cell(orderId)) could not be looked up: \(cell(reason))</p>\n"
            case nil:
                break
            }
            if let user {
                text += "<h3>Credits of \(cell(user)): \(credits.count)</h3>\n"
                text += table(id: "credits", ["Transaction", "Product", "Credited at", "Revoked at", "Revocation"], credits.map { credit in
                    [credit.transactionId, credit.productId, date(credit.creditedAt), date(credit.revokedAt), credit.revocationReason]
                })
            }
            text += "<h3>Missed orders (seen, never credited): \(missedOrders.count)</h3>\n"
            text += table(id: "missed", ["Transaction", "Original", "Product", "Bundle", "Environment", "Purchased", "Expires",
                                         "First seen", "Source", "Revoked at", "Revocation"], missedOrders.map { row in
                let transaction = row.transaction
                return [transaction.transactionId, transaction.originalTransactionId, transaction.productId, transaction.bundleId,
                        transaction.environment, date(transaction.purchaseDate), date(transaction.expiresDate), date(row.firstSeenAt),
                        transaction.source.rawValue, date(row.revokedAt), row.revocationReason]
            })
        }
        return text
    }

    private static func table(id: String, _ columns: [String], _ rows: [[String?]]) -> String {
        var text = "<table id=\"\(id)\">\n<tr>" + columns.map { "<th>\(escape($0))</th>" }.joined() + "</tr>\n"
        for row in rows {
            text += "<tr>" + row.map { "<td>\(cell($0 ?? ""))</td>" }.joined() + "</tr>\n"
        }
        return text + "</table>\n"
    }

    /// Ledger values came from receipts, tokens and clients: display text, then HTML-escaped.
    private static func cell(_ value: String) -> String {
        escape(DisplayText.escape(value, limit: DisplayText.fieldLimit))
    }

    private static func date(_ value: Date?) -> String? { value.map(RFC3339.string(from:)) }
}

extension ServerLedger {
    /// `POST /ledger`: the form's token checked as the routes check theirs, then the user's credits
    /// and the missed orders; the status to answer with and what to show.
    func lookUp(form body: [UInt8], reconciler: Reconciler?) async -> (HTTPResponse.Status, SupportPage.LedgerLookup) {
        guard let presented = try? SupportPage.formValue(named: "token", in: body), token.matches(Array(presented.utf8)) else {
            return (.unauthorized, .refused("The ledger token is missing or wrong."))
        }
        var user: String?
        if let given = try? SupportPage.formValue(named: "user", in: body), !given.isEmpty {
            do throws(Refusal) {
                user = try LedgerIdentifier.validated(given)
            } catch {
                return (.badRequest, .refused("The user id is refused: \(error.reason)"))
            }
        }
        var order: SupportPage.OrderLookup?
        if let orderId = try? SupportPage.formValue(named: "order", in: body), !orderId.isEmpty {
            order = await Self.lookUp(order: orderId, with: reconciler)
        }
        do throws(LedgerError) {
            var credits: [Credit] = []
            if let user { credits = try await ledger.credits(of: user, limit: SupportPage.ledgerRows) }
            let missed = try await ledger.uncredited(olderThan: 0, limit: SupportPage.ledgerRows)
            return (.ok, .shown(user: user, credits: credits, missedOrders: missed, order: order))
        } catch {
            return (.serviceUnavailable, .refused("The ledger's database is unavailable; try again."))
        }
    }

    /// Look Up Order ID with the server's key; the answer's transactions verified by the client.
    private static func lookUp(order orderId: String, with reconciler: Reconciler?) async -> SupportPage.OrderLookup {
        guard let reconciler else { return .failed(orderId: orderId, "the server has no App Store Server API credentials") }
        guard orderId.utf8.count <= 64 else { return .failed(orderId: String(orderId.prefix(64)), "an order id is at most 64 characters") }
        do {
            let order = try await reconciler.client.lookUpOrder(orderId)
            return order.status == .valid ? .found(orderId: orderId, order.signedTransactions.map(\.payload)) : .invalid(orderId: orderId)
        } catch {
            return .failed(orderId: orderId, error.description)
        }
    }
}
