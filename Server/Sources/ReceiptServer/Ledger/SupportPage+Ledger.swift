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
        /// The credits of `user` (none asked when nil) and the missed orders, oldest first.
        case shown(user: String?, credits: [Credit], missedOrders: [SeenTransaction])
    }

    /// The most rows the page lists of each.
    static let ledgerRows = 200

    static func ledgerSection(_ lookup: LedgerLookup) -> String {
        var text = """
        <h2>Credit ledger</h2>
        <form method="post" action="/ledger">
        <label for="ledger-token">Ledger token</label> <input id="ledger-token" name="token" type="password" autocomplete="off">
        <label for="ledger-user">User id (optional)</label> <input id="ledger-user" name="user" type="text">
        <button type="submit">Look up</button>
        </form>

        """
        switch lookup {
        case .form:
            break
        case .refused(let reason):
            text += "<p id=\"ledger-error\" class=\"failed\">\(escape(reason))</p>\n"
        case .shown(let user, let credits, let missedOrders):
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
    func lookUp(form body: [UInt8]) async -> (HTTPResponse.Status, SupportPage.LedgerLookup) {
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
        do throws(LedgerError) {
            var credits: [Credit] = []
            if let user { credits = try await ledger.credits(of: user, limit: SupportPage.ledgerRows) }
            let missed = try await ledger.uncredited(olderThan: 0, limit: SupportPage.ledgerRows)
            return (.ok, .shown(user: user, credits: credits, missedOrders: missed))
        } catch {
            return (.serviceUnavailable, .refused("The ledger's database is unavailable; try again."))
        }
    }
}
