import Crypto
import Foundation
import ReceiptParser

/// A JSON value written with its members in the order given, as Apple writes its payloads (and as
/// TestReceipts/generator/storekit2.py does): what `ScenarioSigner` signs.
indirect enum ScenarioJSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral {
    case string(String)
    case integer(Int64)
    case bool(Bool)
    case array([ScenarioJSON])
    case object([(key: String, value: ScenarioJSON)])

    init(stringLiteral value: String) { self = .string(value) }
    init(integerLiteral value: Int64) { self = .integer(value) }
    init(booleanLiteral value: Bool) { self = .bool(value) }
    init(arrayLiteral elements: ScenarioJSON...) { self = .array(elements) }
    init(dictionaryLiteral elements: (String, ScenarioJSON)...) { self = .object(elements.map { (key: $0.0, value: $0.1) }) }

    /// A date as Apple signs it: milliseconds since 1970.
    static func milliseconds(_ date: Date) -> ScenarioJSON { .integer(Int64((date.timeIntervalSince1970 * 1000).rounded())) }

    /// An object's members, added in order.
    struct Members {
        private(set) var members: [(key: String, value: ScenarioJSON)] = []
        mutating func add(_ key: String, _ value: ScenarioJSON) { members.append((key: key, value: value)) }
        var object: ScenarioJSON { .object(members) }
    }

    /// The JSON text, without spaces.
    var text: String {
        switch self {
        case .string(let value): Self.quoted(value)
        case .integer(let value): String(value)
        case .bool(let value): value ? "true" : "false"
        case .array(let elements): "[" + elements.map(\.text).joined(separator: ",") + "]"
        case .object(let members): "{" + members.map { Self.quoted($0.key) + ":" + $0.value.text }.joined(separator: ",") + "}"
        }
    }

    private static func quoted(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// Signs compact JWS as the App Store does, with the JWS test PKI (TestReceipts/pki): header
/// `{"alg":"ES256","x5c":[jws-leaf, jws-intermediate, jws-root]}` (standard base64 DER), ES256 by
/// jws-leaf's P-256 key, the signature raw r ‖ s (64 bytes), every segment base64url without padding
/// (TestReceipts/generator/jws.py). `verifier` trusts jws-root, as the tests' servers do.
struct ScenarioSigner {
    /// TestReceipts/pki, from this file's place in the repository.
    static let pki = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // ReceiptLedgerTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // Server
        .deletingLastPathComponent()  // the repository
        .appendingPathComponent("TestReceipts/pki")

    private let key: P256.Signing.PrivateKey
    private let encodedHeader: String
    /// A verifier whose anchor is the test root, jws-root.der.
    let verifier: SignedDataVerifier

    init() throws {
        key = try P256.Signing.PrivateKey(pemRepresentation: String(contentsOf: Self.pki.appendingPathComponent("jws-leaf.key.pem"), encoding: .utf8))
        let chain = try ["jws-leaf", "jws-intermediate", "jws-root"].map { try Data(contentsOf: Self.pki.appendingPathComponent("\($0).der")) }
        let header: ScenarioJSON = ["alg": "ES256", "x5c": .array(chain.map { .string($0.base64EncodedString()) })]
        encodedHeader = Self.base64url(Data(header.text.utf8))
        verifier = SignedDataVerifier(anchor: try .appStore(rootCertificate: [UInt8](chain[2])))
    }

    /// The compact JWS of `payload`.
    func token(_ payload: ScenarioJSON) throws -> String {
        let signingInput = encodedHeader + "." + Self.base64url(Data(payload.text.utf8))
        let signature = try key.signature(for: Data(signingInput.utf8))
        return signingInput + "." + Self.base64url(signature.rawRepresentation)
    }

    static func base64url(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
