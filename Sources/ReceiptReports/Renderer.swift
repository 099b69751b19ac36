#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReceiptParser

/// Renders one receipt in the chosen format.
public struct Renderer: Sendable {
    package let format: ReportFormat
    package let style: Style
    package let showDetails: Bool
    package let statusTime: Date
    package let expectedEnvironment: Environment?
    package let jsonLayout: JSONWriter.Layout
    /// Indentation levels of a JSON document inside receipt-dump's array of several.
    package let jsonOuterLevel: Int

    /// - Parameters:
    ///   - showDetails: certificate extensions, markers and algorithms too (`--certs`).
    ///   - statusTime: the instant subscription status is given for.
    ///   - expectedEnvironment: `--environment`, for the verifyreceipt format.
    ///   - jsonLayout: how the JSON formats lay out their text.
    ///   - nestedInArray: whether each JSON document goes into an array of several (indented
    ///     one level more).
    public init(format: ReportFormat, style: Style, showDetails: Bool, statusTime: Date, expectedEnvironment: Environment?,
                jsonLayout: JSONWriter.Layout = .indented, nestedInArray: Bool = false) {
        self.format = format
        self.style = style
        self.showDetails = showDetails
        self.statusTime = statusTime
        self.expectedEnvironment = expectedEnvironment
        self.jsonLayout = jsonLayout
        jsonOuterLevel = nestedInArray ? 1 : 0
    }

    /// The report of one receipt: display text for the people formats, JSON for the others.
    public func render(_ result: DumpResult) -> String {
        switch format {
        case .text: return TextReport(style: style, statusTime: statusTime, showDetails: showDetails).render(result)
        case .json: return JSONReport.render(result, layout: jsonLayout, outerLevel: jsonOuterLevel)
        // Tokens have no verifyReceipt form nor an ASN.1 tree: they are shown as their JSON.
        case .verifyreceipt where result.tokens != nil, .asn1 where result.tokens != nil:
            return JSONReport.render(result, layout: jsonLayout, outerLevel: jsonOuterLevel)
        case .verifyreceipt: return VerifyReceiptReport.render(result, expecting: expectedEnvironment, layout: jsonLayout, outerLevel: jsonOuterLevel)
        case .asn1: return ASN1Report.render(result)
        case .summary: return SummaryReport.render(result) + "\n"
        }
    }
}
