import Foundation
import Testing
import ReceiptParser

/// Where the tests find their data.
public enum Paths {
    public static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    public static let fixtures = repository.appendingPathComponent("TestReceipts")
    /// The real receipts: `$RECEIPT_PARSER_CORPUS`, else `../shared/corpus` beside the
    /// repository. CI has them; a fresh clone does not, and tests that need them are skipped.
    public static let corpus = ProcessInfo.processInfo.environment["RECEIPT_PARSER_CORPUS"].map { URL(fileURLWithPath: $0) }
        ?? repository.deletingLastPathComponent().appendingPathComponent("shared/corpus")
    public static let corpusAvailable = FileManager.default.fileExists(atPath: corpus.appendingPathComponent("real").path)
    /// The reason shown for a test skipped without the corpus.
    public static let corpusMissing: Comment = "needs the real receipts in ../shared/corpus or $RECEIPT_PARSER_CORPUS"
    public static func bytes(_ url: URL) throws -> [UInt8] { [UInt8](try Data(contentsOf: url)) }
    /// A receipt of TestReceipts/receipts.
    public static func fixture(_ name: String) throws -> [UInt8] { try bytes(fixtures.appendingPathComponent("receipts/\(name)")) }
    /// A real receipt of the corpus, by its name without `.receipt`.
    public static func realReceipt(_ name: String) throws -> [UInt8] { try bytes(corpus.appendingPathComponent("real/\(name).receipt")) }
}

package func fixture(_ name: String) throws -> [UInt8] { try Paths.fixture(name) }

/// A program this package builds, or nil: `swift test` builds every executable into the folder
/// that holds the test bundle (or the one above it, where the bundle is a folder of its own).
package func builtExecutable(_ name: String) -> URL? {
    let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let candidates = [folder, folder.deletingLastPathComponent()].map { $0.appendingPathComponent(name) }
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
}

/// The sample receipt as one line of base64.
package func sampleBase64() throws -> String {
    String(decoding: try fixture("sample.b64"), as: UTF8.self).filter { !$0.isWhitespace }
}

package func hostileFixture(_ name: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: Paths.fixtures.appendingPathComponent("hostile/\(name)")))
}

package func pki(_ name: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: Paths.fixtures.appendingPathComponent("pki/\(name)")))
}

/// The verifier for the test PKI: App Store rules anchored at the test root.
package func testRootVerifier(_ policy: VerificationPolicy = VerificationPolicy()) throws -> ReceiptVerifier {
    ReceiptVerifier(anchor: try .appStore(rootCertificate: pki("test-root.der")), policy: policy)
}

/// The ReceiptError code an expression throws, or nil if it does not throw.
package func errorCode<T>(_ body: () throws -> T) -> ReceiptError.Code? {
    do {
        _ = try body()
        return nil
    } catch let error as ReceiptError {
        return error.code
    } catch {
        Issue.record("not a ReceiptError: \(error)")
        return nil
    }
}

/// A minimal DER writer for building hostile inputs in tests.
package enum DER {
    package static func length(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var value = count
        while value > 0 {
            bytes.insert(UInt8(value & 0xFF), at: 0)
            value >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }
    package static func element(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] { [tag] + length(content.count) + content }
    package static func sequence(_ parts: [UInt8]...) -> [UInt8] { element(0x30, parts.flatMap { $0 }) }
    package static func set(_ parts: [[UInt8]]) -> [UInt8] { element(0x31, parts.flatMap { $0 }) }
    package static func integer(_ value: Int64) -> [UInt8] {
        var bytes = withUnsafeBytes(of: value.bigEndian, Array.init)
        while bytes.count > 1, (bytes[0] == 0 && bytes[1] & 0x80 == 0) || (bytes[0] == 0xFF && bytes[1] & 0x80 != 0) {
            bytes.removeFirst()
        }
        return element(0x02, bytes)
    }
    package static func octets(_ content: [UInt8]) -> [UInt8] { element(0x04, content) }
    package static func utf8(_ text: String) -> [UInt8] { element(0x0C, Array(text.utf8)) }
    package static func ia5(_ text: String) -> [UInt8] { element(0x16, Array(text.utf8)) }
    package static func attribute(_ type: Int64, _ value: [UInt8], version: Int64 = 1) -> [UInt8] {
        sequence(integer(type), integer(version), octets(value))
    }
    package static func oid(_ content: [UInt8]) -> [UInt8] { element(0x06, content) }

    /// A SignedData receipt around `payload` with the given certificates and one SignerInfo.
    package static func receipt(payload: [UInt8], certificates: [[UInt8]], issuer: [UInt8], serial: [UInt8],
                        signature: [UInt8], digest: [UInt8] = OID.sha256,
                        signatureAlgorithm: [UInt8] = OID.rsaEncryption) -> [UInt8] {
        let algorithm = sequence(oid(digest), [0x05, 0x00])
        let signerInfo = sequence(integer(1), sequence(issuer, element(0x02, serial)), algorithm,
                                  sequence(oid(signatureAlgorithm), [0x05, 0x00]), octets(signature))
        let signedData = sequence(
            integer(1), set([algorithm]),
            sequence(oid(OID.data), element(0xA0, octets(payload))),
            element(0xA0, certificates.flatMap { $0 }),
            set([signerInfo]))
        return sequence(oid(OID.signedData), element(0xA0, signedData))
    }
}
