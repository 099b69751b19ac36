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
            guard !outputs.isEmpty else { return StandardStreams.writeOutput(["[]\n"]) }
            // Each document indented by 2, written as it stands, not copied into one text first.
            var output = StandardStreams.OutputBuffer()
            output.append("[\n")
            for (index, document) in outputs.enumerated() {
                output.append(index == 0 ? "  " : ",\n  ")
                output.append(document, indentingLinesBy: "  ")
            }
            output.append("\n]\n")
            output.flush()
        }
    }
}
