import Foundation
import Hummingbird
import HummingbirdTesting
import ReceiptParser
import ReceiptTestSupport
import Testing
@testable import ReceiptServer

/// The JWS test PKI's tokens and bodies (TestReceipts/jws) and the real Apple tokens
/// (../shared/corpus/jws), and a server that trusts the test root for tokens.
enum SignedDataFixtures {
    static let testRoot = Paths.fixtures.appendingPathComponent("pki/jws-root.der")
    static let storeKitCertificate = Paths.fixtures.appendingPathComponent("pki/jws-storekit.der")

    /// A fixture's bytes as the file holds them (a token and a line feed, or a JSON body).
    static func file(_ name: String) throws -> [UInt8] { try Paths.bytes(Paths.fixtures.appendingPathComponent("jws/\(name)")) }

    /// A token fixture without the line feed, to put inside a JSON body.
    static func token(_ name: String) throws -> String {
        String(decoding: try file(name), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `{"member":"token"}` for the fixture `name`.
    static func body(_ member: String, _ name: String) throws -> ByteBuffer {
        ByteBuffer(string: "{\"\(member)\":\"\(try token(name))\"}")
    }

    /// The tests' server: receipts as ServerTests have them, tokens under the JWS test root.
    static func configuration(_ change: (inout ServerConfiguration) -> Void = { _ in }) throws -> ServerConfiguration {
        let verifier = SignedDataVerifier(anchor: try .appStore(rootCertificate: Paths.bytes(testRoot)))
        return try ServerTests.testRootConfiguration { configuration in
            configuration.signedDataVerifier = verifier
            change(&configuration)
        }
    }

    /// The status and JSON object a route answers `body` with.
    static func answer(_ client: some TestClientProtocol, _ uri: String, _ body: ByteBuffer) async throws -> (status: Int, json: [String: Any]) {
        try await client.execute(uri: uri, method: .post, body: body) { response in
            (Int(response.status.code), try ServerTests().object(response.body))
        }
    }

    /// `error` of a refusal (code, member when named, reason), after checking the one shape.
    static func error(_ json: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) -> [String: String] {
        RefusalShape.error(json, sourceLocation: sourceLocation)
    }

    /// The real tokens: `$RECEIPT_PARSER_CORPUS/jws`, else ../shared/corpus/jws.
    static let corpus = Paths.corpus.appendingPathComponent("jws")
    static let corpusAvailable = FileManager.default.fileExists(atPath: corpus.appendingPathComponent("tokens").path)
    static let corpusMissing: Comment = "needs the real StoreKit 2 tokens in ../shared/corpus/jws or $RECEIPT_PARSER_CORPUS/jws"
}
