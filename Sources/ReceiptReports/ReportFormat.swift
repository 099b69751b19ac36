#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReceiptParser

/// The output formats of receipt-dump.
public enum ReportFormat: String, CaseIterable, Sendable {
    /// For people: verdict, chain, fields, purchase table, raw attributes.
    case text
    /// The full typed model.
    case json
    /// Apple's verifyReceipt JSON.
    case verifyreceipt
    /// The raw attribute tree.
    case asn1
    /// One tab-separated line per receipt.
    case summary
}
