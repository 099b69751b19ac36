import ArgumentParser
import ReceiptParser
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
            // Each document was written indented for its place in the array (Renderer's
            // nestedInArray); it goes in as it stands, not copied into one text first.
            let (open, separator, close) = jsonLayout == .indented ? ("[\n  ", ",\n  ", "\n]\n") : ("[\n", ",\n", "\n]\n")
            var output = StandardStreams.OutputBuffer()
            output.append(open)
            for (index, document) in outputs.enumerated() {
                if index > 0 { output.append(separator) }
                output.append(document)
            }
            output.append(close)
            output.flush()
        }
    }
}
