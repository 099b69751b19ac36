import Foundation
import ReceiptParser

/// Receipts made inside a test, for contents the generated fixtures do not have (look-alike
/// identifiers, every receipt type).
package enum TestReceipt {
    /// Identifiers equal as Swift `String`s but not byte for byte, in pairs.
    package enum LookAlike {
        package static let precomposed = "com.example.caf\u{E9}"
        package static let decomposed = "com.example.cafe\u{301}"
        package static let kelvin = "tx-\u{212A}"  // KELVIN SIGN, canonically "K"
        package static let letterK = "tx-K"
    }

    /// One in-app purchase: product, transaction and original transaction identifiers.
    package struct Purchase {
        package var productID: String
        package var transactionID: String
        package var originalTransactionID: String?
        package var purchaseDate = "2025-05-01T00:00:00Z"
        package var expiresDate: String?
        package var isTrialPeriod = false

        package init(productID: String, transactionID: String, originalTransactionID: String? = nil,
                     purchaseDate: String = "2025-05-01T00:00:00Z", expiresDate: String? = nil, isTrialPeriod: Bool = false) {
            self.productID = productID
            self.transactionID = transactionID
            self.originalTransactionID = originalTransactionID
            self.purchaseDate = purchaseDate
            self.expiresDate = expiresDate
            self.isTrialPeriod = isTrialPeriod
        }
    }

    /// A receipt payload (the SET of attributes). A nil `receiptType` leaves attribute 0 out.
    package static func payload(receiptType: String? = "ProductionSandbox", bundleID: String = "com.example.receiptparser.sample",
                        applicationVersion: String = "1.0", purchases: [Purchase] = []) -> [UInt8] {
        var attributes: [[UInt8]] = []
        if let receiptType { attributes.append(DER.attribute(0, DER.utf8(receiptType))) }
        attributes.append(DER.attribute(2, DER.utf8(bundleID)))
        attributes.append(DER.attribute(3, DER.utf8(applicationVersion)))
        attributes.append(DER.attribute(12, DER.ia5("2025-06-01T12:00:00Z")))
        for purchase in purchases {
            var fields = [DER.attribute(1701, DER.integer(1)), DER.attribute(1702, DER.utf8(purchase.productID)),
                          DER.attribute(1703, DER.utf8(purchase.transactionID)),
                          DER.attribute(1704, DER.ia5(purchase.purchaseDate)),
                          DER.attribute(1713, DER.integer(purchase.isTrialPeriod ? 1 : 0))]
            if let original = purchase.originalTransactionID { fields.append(DER.attribute(1705, DER.utf8(original))) }
            if let expires = purchase.expiresDate { fields.append(DER.attribute(1708, DER.ia5(expires))) }
            attributes.append(DER.attribute(17, DER.set(fields)))
        }
        return DER.set(attributes)
    }

    /// The payload in a PKCS #7 envelope with no certificate and no valid signature: it decodes
    /// (receipt-dump `--no-verify`) but never verifies.
    package static func unsigned(_ payload: [UInt8]) -> [UInt8] {
        DER.receipt(payload: payload, certificates: [], issuer: DER.sequence(), serial: [1], signature: [0])
    }

    /// The `openssl` command, which `signed(_:)` needs; tests that sign are skipped without it.
    package static let openssl: String? = ["/usr/bin/openssl", "/usr/local/bin/openssl", "/opt/homebrew/bin/openssl"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The payload signed by the test PKI's receipt signer, as Apple signs receipts (no signed
    /// attributes, intermediate and root included), so it verifies under `pki/test-root.der`.
    package static func signed(_ payload: [UInt8]) throws -> [UInt8] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("test-receipt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func pem(_ name: String) throws -> String {
            let base64 = Data(try pki("\(name).der")).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
            return "-----BEGIN CERTIFICATE-----\n\(base64)\n-----END CERTIFICATE-----\n"
        }
        let files = (payload: folder.appendingPathComponent("payload.der"), signer: folder.appendingPathComponent("signer.pem"),
                     chain: folder.appendingPathComponent("chain.pem"), receipt: folder.appendingPathComponent("receipt.der"))
        try Data(payload).write(to: files.payload)
        try Data(try pem("test-signer").utf8).write(to: files.signer)
        try Data((try pem("test-intermediate") + pem("test-root")).utf8).write(to: files.chain)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try openssl ?? { throw CocoaError(.executableNotLoadable) }())
        process.arguments = ["cms", "-sign", "-binary", "-nodetach", "-noattr", "-md", "sha256", "-outform", "DER",
                             "-in", files.payload.path, "-signer", files.signer.path,
                             "-inkey", Paths.fixtures.appendingPathComponent("pki/test-signer.key.pem").path,
                             "-certfile", files.chain.path, "-out", files.receipt.path]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.executableLoad) }
        return [UInt8](try Data(contentsOf: files.receipt))
    }

    /// Writes `bytes` to a temporary file for receipt-dump; the caller removes it.
    package static func temporaryFile(_ bytes: [UInt8]) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("test-receipt-\(UUID().uuidString).receipt")
        try Data(bytes).write(to: url)
        return url
    }
}
