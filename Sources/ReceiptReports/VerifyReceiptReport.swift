import ReceiptParser

/// The --format verifyreceipt output: Apple's response format.
package enum VerifyReceiptReport {
    package static func render(_ result: DumpResult, expecting environment: Environment?,
                               layout: JSONWriter.Layout = .indented, outerLevel: Int = 0) -> String {
        var json = JSONWriter(layout: layout, capacity: 4096, outerLevel: outerLevel)
        if let verified = result.verifiedReceipt, result.readError == nil {
            VerifyReceiptResponse.write(for: .success(verified), expecting: environment, to: &json)
        } else {
            VerifyReceiptResponse.write(result.readError == nil ? .notAuthenticated : .malformed, to: &json)
        }
        return json.finishString()
    }
}
