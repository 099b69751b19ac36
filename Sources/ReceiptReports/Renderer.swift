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

    /// - Parameters:
    ///   - showDetails: certificate extensions, markers and algorithms too (`--certs`).
    ///   - statusTime: the instant subscription status is given for.
    ///   - expectedEnvironment: `--environment`, for the verifyreceipt format.
    public init(format: ReportFormat, style: Style, showDetails: Bool, statusTime: Date, expectedEnvironment: Environment?) {
        self.format = format
        self.style = style
        self.showDetails = showDetails
        self.statusTime = statusTime
        self.expectedEnvironment = expectedEnvironment
    }

    /// The report of one receipt: display text for the people formats, JSON for the others.
    public func render(_ result: DumpResult) -> String {
        switch format {
        case .text: return TextReport(style: style, statusTime: statusTime, showDetails: showDetails).render(result)
        case .json: return JSONReport.render(result)
        case .verifyreceipt: return VerifyReceiptReport.render(result, expecting: expectedEnvironment).rendered(pretty: true)
        case .asn1: return ASN1Report.render(result)
        case .summary: return SummaryReport.render(result) + "\n"
        }
    }
}
