import Foundation
import Testing
@testable import ReceiptParser
import ReceiptTestSupport

/// ES256 signing with a caller's key: tokens this library signs verify under its own verifier
/// (which verifies Apple's real tokens), OpenSSL's command line verifies the DER form, and keys
/// that are not P-256 PKCS #8 are refused with a typed error.
struct SigningTests {
    static func header(certificates: [String]) -> [UInt8] {
        var json = JSONWriter()
        json.beginObject()
        json.key("alg"); json.string("ES256")
        json.key("x5c"); json.beginArray()
        for certificate in certificates { json.string(certificate) }
        json.endArray()
        json.endObject()
        return json.finish()
    }

    /// A transaction signed here with the test PKI's leaf key verifies like one Apple signed.
    @Test func aSignedTransactionVerifies() throws {
        let key = try ES256SigningKey(pkcs8: pki("jws-leaf.key.pem"))
        let chain = try ["jws-leaf.der", "jws-intermediate.der", "jws-root.der"].map { JWSSigning.base64(try pki($0)) }
        let payload = Array(#"{"transactionId":"7","originalTransactionId":"7","bundleId":"com.example","productId":"p","purchaseDate":1748779200000,"signedDate":1748779200000,"environment":"Sandbox","type":"Consumable","inAppOwnershipType":"PURCHASED","quantity":1}"#.utf8)
        let token = JWSSigning.sign(header: Self.header(certificates: chain), payload: payload, with: key)
        let verifier = SignedDataVerifier(anchor: try .appStore(rootCertificate: pki("jws-root.der")))
        let transaction = try verifier.verifyTransaction(Array(token.utf8))
        #expect(transaction.transactionId == "7")

        // The same payload under another key (the attacker's) does not verify.
        let forged = JWSSigning.sign(header: Self.header(certificates: chain), payload: payload,
                                     with: try ES256SigningKey(pkcs8: pki("jws-attacker-leaf.key.pem")))
        #expect(verifier.inspect(Array(forged.utf8)).failure?.code == .signatureInvalid)
        // Fresh nonces: two signatures of one input differ.
        #expect(key.signature(of: payload) != key.signature(of: payload))
    }

    /// `openssl dgst -verify` accepts the DER signature with the certificate's public key.
    @Test func opensslVerifiesTheDERSignature() throws {
        let key = try ES256SigningKey(pkcs8: pki("jws-leaf.key.pem"))
        let message = Array("com.example\u{2063}KEY\u{2063}product".utf8)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("signing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(message).write(to: folder.appendingPathComponent("message"))
        try Data(key.derSignature(of: message)).write(to: folder.appendingPathComponent("signature"))
        try Data(pki("jws-leaf.der")).write(to: folder.appendingPathComponent("leaf.der"))
        func openssl(_ arguments: [String]) throws -> Int32 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["openssl"] + arguments
            process.currentDirectoryURL = folder
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus
        }
        #expect(try openssl(["x509", "-inform", "DER", "-in", "leaf.der", "-pubkey", "-noout", "-out", "leaf.pub"]) == 0)
        #expect(try openssl(["dgst", "-sha256", "-verify", "leaf.pub", "-signature", "signature", "message"]) == 0)
        try Data(Array("another message".utf8)).write(to: folder.appendingPathComponent("message"))
        #expect(try openssl(["dgst", "-sha256", "-verify", "leaf.pub", "-signature", "signature", "message"]) == 1)
    }

    /// The public point is the certificate's: the key and the leaf are one pair.
    @Test func thePublicPointIsTheCertificates() throws {
        let key = try ES256SigningKey(pkcs8: pki("jws-leaf.key.pem"))
        #expect(key.publicKey.count == 65 && key.publicKey[0] == 4)
        #expect(try pki("jws-leaf.der").firstRange(of: key.publicKey) != nil)
    }

    /// Keys of another curve or type, no key, and a PEM with a damaged body are refused.
    @Test func otherKeysAreRefused() throws {
        for name in ["jws-leaf-p384.key.pem", "jws-leaf-rsa.key.pem", "jws-leaf.der"] {
            #expect(errorCode { try ES256SigningKey(pkcs8: pki(name)) } == .invalidSigningKey, "\(name)")
        }
        #expect(errorCode { try ES256SigningKey(pkcs8: Array("-----BEGIN PRIVATE KEY-----\n!!\n-----END PRIVATE KEY-----".utf8)) } == .invalidSigningKey)
        var trailing = try pki("jws-leaf.key.pem")
        trailing = Array(String(decoding: trailing, as: UTF8.self).replacingOccurrences(of: "-----END", with: "AAAA\n-----END").utf8)
        #expect(errorCode { try ES256SigningKey(pkcs8: trailing) } == .invalidSigningKey)
    }

    /// DER and r‖s convert both ways, high bits and short integers included.
    @Test func derAndRawSignaturesConvert() throws {
        for _ in 0..<200 {
            var raw = (0..<64).map { _ in UInt8.random(in: 0...255) }
            raw[Int.random(in: 0..<2) * 32] = [0, 0x80, 0x01].randomElement()!
            let der = try ES256Signature.der(raw)
            #expect(ES256Signature.raw(fromDER: der) == raw)
        }
        #expect(ES256Signature.raw(fromDER: [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01, 0x00]) == nil)
        #expect(JWSSigning.base64URL([0xfb, 0xff]) == "-_8" && JWSSigning.base64([0xfb, 0xff]) == "+/8=")
    }
}
