import CReceiptCrypto
import Foundation
import Testing
@testable import ReceiptParser
import ReceiptTestSupport

/// The trust units: key facts as OpenSSL reports them, the key policy, the scheme a label
/// names, and the signature budget.
struct KeyPolicyTests {
    func facts(_ der: [UInt8]) throws -> PublicKeyFacts { try Certificate(der: ByteString(der)).publicKey }

    @Test func policyBoundaries() {
        let policy = KeyPolicy.standard
        func allowed(_ key: PublicKeyFacts) -> Bool { policy.refusal(of: key) == nil }
        func rsa(_ bits: Int, _ e: UInt64?) -> PublicKeyFacts {
            .rsa(modulusBits: bits, exponentBits: e.map { 64 - $0.leadingZeroBitCount } ?? 65, exponent: e)
        }
        #expect(allowed(rsa(2048, 65537)))
        #expect(allowed(rsa(4096, 3)))
        #expect(allowed(rsa(3072, (1 << 32) - 1)))
        #expect(!allowed(rsa(2047, 65537)))
        #expect(!allowed(rsa(4097, 65537)))
        #expect(!allowed(rsa(8192, 65537)))
        #expect(!allowed(rsa(2048, (1 << 32) + 1)))
        #expect(!allowed(rsa(2048, nil)))  // more than 64 bits
        #expect(!allowed(rsa(2048, 1)))
        #expect(!allowed(rsa(2048, 65536)))
        #expect(!allowed(rsa(2048, 0)))
        #expect(allowed(.ec(.p256)))
        #expect(allowed(.ec(.p384)))
        #expect(!allowed(.ec(.other)))
        #expect(!allowed(.other))
    }

    @Test func theTestPKIPasses() throws {
        for name in ["test-root", "test-intermediate", "test-signer", "test-intermediate-sha1", "test-signer-sha1", "storekit-test"] {
            let key = try facts(pki("\(name).der"))
            #expect(key == .rsa(modulusBits: 2048, exponentBits: 17, exponent: 65537), "\(name)")
            #expect(KeyPolicy.standard.refusal(of: key) == nil, "\(name)")
        }
    }

    @Test(.enabled(if: Paths.corpusAvailable, "../shared/corpus is missing"))
    func applesCertificatesPass() throws {
        let folder = Paths.corpus.appendingPathComponent("certs")
        let expected: [String: PublicKeyFacts] = [
            "AppleIncRootCertificate.der": .rsa(modulusBits: 2048, exponentBits: 17, exponent: 65537),
            "AppleRootCA-G2.der": .rsa(modulusBits: 4096, exponentBits: 17, exponent: 65537),
            "AppleRootCA-G3.der": .ec(.p384),
            "StoreKitTestCertificate.der": .rsa(modulusBits: 2048, exponentBits: 17, exponent: 65537),
        ]
        for (name, key) in expected {
            #expect(try facts([UInt8](Data(contentsOf: folder.appendingPathComponent(name)))) == key, "\(name)")
        }
        let intermediates = folder.appendingPathComponent("intermediate")
        for name in try FileManager.default.contentsOfDirectory(atPath: intermediates.path) {
            let key = try facts([UInt8](Data(contentsOf: intermediates.appendingPathComponent(name))))
            #expect(KeyPolicy.standard.refusal(of: key) == nil, "\(name): \(key)")
        }
        // Every certificate every real receipt carries.
        for name in try FileManager.default.contentsOfDirectory(atPath: Paths.corpus.appendingPathComponent("real").path) {
            let bytes = [UInt8](try Data(contentsOf: Paths.corpus.appendingPathComponent("real/\(name)")))
            guard let container = try? ReceiptContainer.parse(bytes) else { continue }
            for der in container.certificates {
                let certificate = try Certificate(der: der)
                #expect(certificate.keyRefusal == nil, "\(name): \(certificate.subjectName) \(certificate.publicKey)")
            }
        }
    }

    /// A certificate's key is set up once (``Certificate`` keeps an rc_verifier) and copied per
    /// check; each verdict must be the one a key set up for that check alone gives: a good
    /// signature, a flipped bit, other data, a short signature and the other scheme, for an RSA
    /// and an EC key (each checks the certificate it issued, under its certificate's digest).
    /// Many threads sharing one certificate's verifier: `ConcurrencyTests` and the corpus suite.
    @Test func aPreparedKeyGivesTheVerdictsOfAKeySetUpPerCheck() throws {
        for (issuerName, subjectName, scheme, digest) in [("test-intermediate.der", "test-signer.der", SignatureScheme.rsaPKCS1, Digest.sha256),
                                                          ("jws-intermediate.der", "jws-leaf.der", .ecdsa, .sha384)] {
            let issuer = try Certificate(der: ByteString(pki(issuerName)))
            let subject = try Certificate(der: ByteString(pki(subjectName)))
            #expect(issuer.hasPreparedVerifier, "\(issuerName): the key is set up once")
            let signature = Array(subject.signature), signed = Array(subject.tbsCertificate)
            var flipped = signature
            flipped[flipped.count / 2] ^= 0x10
            var otherData = signed
            otherData[otherData.count - 1] ^= 0x01
            let subjectVerifier = rc_verifier_new(subject.handle)
            defer { rc_verifier_free(subjectVerifier) }
            let otherScheme: SignatureScheme = scheme == .rsaPKCS1 ? .ecdsa : .rsaPKCS1
            let cases: [(String, [UInt8], [UInt8], SignatureScheme, rc_signature_result)] = [
                ("good", signature, signed, scheme, RC_SIGNATURE_VALID),
                ("flipped bit", flipped, signed, scheme, RC_SIGNATURE_INVALID),
                ("other data", signature, otherData, scheme, RC_SIGNATURE_INVALID),
                ("short", Array(signature.dropLast()), signed, scheme, RC_SIGNATURE_INVALID),
                ("other scheme", signature, signed, otherScheme, RC_SIGNATURE_UNSUPPORTED_KEY),
            ]
            for (name, signature, data, scheme, expected) in cases {
                let prepared = issuer.verifies(signature: ByteString(signature), over: ByteString(data), scheme: scheme, digest: digest)
                let perCheck = rc_verify_signature(issuer.handle, nil, scheme.cValue, digest.algorithm,
                                                   data, data.count, signature, signature.count)
                // A verifier made for another key is ignored, never used with the signer's checks.
                let mismatched = rc_verify_signature(issuer.handle, subjectVerifier, scheme.cValue, digest.algorithm,
                                                     data, data.count, signature, signature.count)
                #expect(prepared == expected, "\(issuerName), \(name): prepared")
                #expect(mismatched == expected, "\(issuerName), \(name): another key's verifier")
                #expect(perCheck == expected, "\(issuerName), \(name): set up per check")
            }
        }
    }

    @Test func theForgedKeysAreReadAsWritten() throws {
        func forged(_ fixture: String) throws -> Certificate {
            let bytes = [UInt8](try Data(contentsOf: Paths.fixtures.appendingPathComponent("hostile/\(fixture)")))
            return try Certificate(der: ByteString(HostileCertificateTests.certificate(at: 1, in: bytes)))
        }
        #expect(try forged("key-rsa-8192.receipt").publicKey == .rsa(modulusBits: 8192, exponentBits: 17, exponent: 65537))
        #expect(try forged("key-rsa-1024.receipt").publicKey == .rsa(modulusBits: 1024, exponentBits: 17, exponent: 65537))
        #expect(try forged("key-exponent-too-large.receipt").publicKey == .rsa(modulusBits: 2048, exponentBits: 2047, exponent: nil))
        #expect(try forged("key-ec-p521.receipt").publicKey == .ec(.other))
        #expect(try forged("certificate-bomb.receipt").keyRefusal != nil)
        #expect(try forged("budget-eight-fakes.receipt").keyRefusal == nil)
    }

    @Test func anAnchorWithAKeyOutsideThePolicyIsRefusedWhenConfigured() throws {
        let bytes = [UInt8](try Data(contentsOf: Paths.fixtures.appendingPathComponent("hostile/key-rsa-1024.receipt")))
        let weak = try HostileCertificateTests.certificate(at: 1, in: bytes)
        #expect(errorCode { try TrustAnchor.appStore(rootCertificate: weak) } == .keyNotAllowed)
        #expect(errorCode { try TrustAnchor.storeKitTesting(certificate: weak) } == .keyNotAllowed)
        #expect(errorCode { try TrustAnchor.appStore(rootCertificate: pki("test-root.der")) } == nil)
    }

    @Test func schemesFollowTheLabel() {
        #expect(SignatureScheme(algorithm: ByteString(OID.rsaEncryption)) == .rsaPKCS1)
        #expect(SignatureScheme(algorithm: ByteString(OID.sha1WithRSA)) == .rsaPKCS1)
        #expect(SignatureScheme(algorithm: ByteString(OID.ecdsaWithSHA384)) == .ecdsa)
        #expect(SignatureScheme(algorithm: ByteString(OID.sha256)) == nil)
        let rsaKey = PublicKeyFacts.rsa(modulusBits: 2048, exponentBits: 17, exponent: 65537)
        #expect(SignatureScheme.rsaPKCS1.mismatch(with: rsaKey) == nil)
        #expect(SignatureScheme.ecdsa.mismatch(with: rsaKey) != nil)
        #expect(SignatureScheme.rsaPKCS1.mismatch(with: .ec(.p256)) != nil)
        #expect(SignatureScheme.ecdsa.mismatch(with: .other) != nil)
    }

    /// How many signatures verification tried, read back from the budget it spent.
    func signatureChecks(_ bytes: [UInt8], _ verifier: ReceiptVerifier) throws -> (Int, ReceiptError?) {
        var budget = SignatureBudget()
        do throws(ReceiptError) {
            _ = try verifier.verify(ReceiptContainer.parse(bytes), budget: &budget)
            return (budget.used, nil)
        } catch {
            return (budget.used, error)
        }
    }

    @Test func signatureChecksAreCountedAndBounded() throws {
        let verifier = try testRootVerifier()
        func hostile(_ name: String) throws -> [UInt8] { try HostileCertificateTests.hostile(name) }
        // A genuine chain: receipt, signer by intermediate, intermediate by root.
        #expect(try signatureChecks(fixture("sample.receipt"), verifier) == (3, nil))
        // Remembered: only the receipt's own signature.
        #expect(try signatureChecks(fixture("sample.receipt"), verifier) == (1, nil))
        // One forged intermediate ahead of the real one: exactly the budget.
        #expect(try signatureChecks(hostile("budget-one-fake.receipt"), verifier).0 == SignatureBudget.perVerification)
        // Eight: the budget runs out, the reason says so, and no more signatures were tried.
        let (used, error) = try signatureChecks(hostile("budget-eight-fakes.receipt"), verifier)
        #expect(used == SignatureBudget.perVerification)
        #expect(error?.code == .untrustedChain)
        #expect(error?.reason.contains("budget ran out") == true)
        // Keys outside the policy are refused before any signature with them.
        let (keyUsed, keyError) = try signatureChecks(hostile("key-exponent-too-large.receipt"), verifier)
        #expect(keyUsed == 1)
        #expect(keyError?.code == .keyNotAllowed)
        // Labels that do not fit the key: refused before the check.
        #expect(try signatureChecks(hostile("ecdsa-label-rsa-signature.receipt"), ReceiptVerifier(chainCacheCapacity: 0)).0 == 0)
    }

    @Test func theBudgetRefusesPastItsLimit() throws {
        var budget = SignatureBudget(limit: 2)
        try budget.spend(on: "one")
        try budget.spend(on: "two")
        #expect(throws: ReceiptError.self) { try budget.spend(on: "three") }
        #expect(budget.used == 2)
    }
}
