import ArgumentParser
import ReceiptReports

extension ReportFormat: ExpressibleByArgument {}

extension Renderer {
    /// Writes the whole output to standard output: reports one after another, or one JSON array
    /// for several JSON documents.
    func write(_ outputs: some Collection<String>) {
        switch format {
        case .text, .asn1: StandardStreams.writeOutput(outputs, separator: "\n")
        case .summary: StandardStreams.writeOutput(outputs)
        case .json, .verifyreceipt:
            guard outputs.count != 1 else { return StandardStreams.writeOutput([outputs.first!, "\n"]) }
            let items = outputs.map { "  " + $0.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n  ") }
            StandardStreams.writeOutput([outputs.isEmpty ? "[]\n" : "[\n" + items.joined(separator: ",\n") + "\n]\n"])
        }
    }
}
