import Foundation
import Testing
@testable import ReceiptParser
import ReceiptTestSupport

/// The hostile certificates of TestReceipts/hostile/ (certificate bombs, forged intermediates,
/// keys outside the key policy, algorithm labels that do not fit the key) beyond their verdicts,
/// which FixtureTests checks from TestReceipts/cases.json: the certificate cap, the size
/// limit, and a remembered chain that does not excuse a wrong label.
struct HostileCertificateTests {
    static func hostile(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: Paths.fixtures.appendingPathComponent("hostile/\(name)")))
    }

    @Test func theCapCountsCertificatesWithoutParsingThem() throws {
        let error = try #require(throws: ReceiptError.self) { try ReceiptContainer.parse(Self.hostile("certificate-bomb.receipt")) }
        #expect(error.code == .tooManyCertificates)
        #expect(error.reason.contains("more than \(DecodingLimits.maximumCertificates)"))
        // At the cap the envelope is read, and every certificate tool sees at most the cap.
        let atCap = try ReceiptContainer.parse(Self.hostile("budget-eight-fakes.receipt"))
        #expect(atCap.certificates.count == DecodingLimits.maximumCertificates)
        #expect(atCap.certificateSummaries().count == DecodingLimits.maximumCertificates)
        #expect(atCap.certificateDetails().count == DecodingLimits.maximumCertificates)
        // Other CertificateChoices (skipped, never parsed) count too.
        let sample = try ReceiptContainer.parse(fixture("sample.receipt"))
        guard case .issuerAndSerialNumber(let issuer, let serial) = try #require(sample.signers.first).identifier else { return }
        func wrapped(_ certificates: [[UInt8]]) -> [UInt8] {
            DER.receipt(payload: sample.payload, certificates: certificates, issuer: Array(issuer), serial: Array(serial),
                        signature: Array(sample.signers[0].signature))
        }
        let junk = DER.element(0xA1, DER.integer(7))  // [1] other certificate format
        let real = sample.certificates.map { Array($0) }
        #expect(errorCode { try ReceiptContainer.parse(wrapped(Array(repeating: junk, count: 8) + real)) } == .tooManyCertificates)
        #expect(try testRootVerifier().verifyAndDecode(wrapped(real + Array(repeating: junk, count: 7))).receipt.inAppPurchases.count == 3)
    }

    /// One certificate of megabytes (OpenSSL's parse grows with size: 400 000 empty extensions
    /// took 0.7 s to parse): refused by its size while the envelope is read, before OpenSSL.
    @Test func aCertificateLargerThanTheLimitIsRefusedBeforeParsing() throws {
        let sample = try ReceiptContainer.parse(fixture("sample.receipt"))
        guard case .issuerAndSerialNumber(let issuer, let serial) = try #require(sample.signers.first).identifier else { return }
        func wrapped(extra: [UInt8]) -> [UInt8] {
            DER.receipt(payload: sample.payload, certificates: sample.certificates.map { Array($0) } + [extra],
                        issuer: Array(issuer), serial: Array(serial), signature: Array(sample.signers[0].signature))
        }
        /// A SEQUENCE of exactly `size` bytes, header included.
        func sequence(size: Int) -> [UInt8] {
            var content = size - 4
            while 1 + DER.length(content).count + content != size { content += size - (1 + DER.length(content).count + content) }
            return DER.element(0x30, Array(repeating: 0x05, count: content))
        }
        let limit = DecodingLimits.maximumCertificateSize
        #expect(sequence(size: limit).count == limit)
        #expect(errorCode { try ReceiptContainer.parse(wrapped(extra: sequence(size: limit + 1))) } == .certificateTooLarge)
        #expect(try ReceiptContainer.parse(wrapped(extra: sequence(size: limit))).certificates.count == 4)
        let start = ContinuousClock.now
        let huge = wrapped(extra: sequence(size: 4 << 20))
        #expect(errorCode { try testRootVerifier().verifyAndDecode(huge) } == .certificateTooLarge)
        #expect(ContinuousClock.now - start < .seconds(1))
        #expect(VerifyReceiptResponse.Status(ReceiptError(.certificateTooLarge, "")) == .notAuthenticated)
    }

    /// A 4 MB receipt of thousands of copies of one bomb certificate (3072-bit modulus, huge
    /// exponent) cost 10-15 s of CPU before the cap; now it is refused while the envelope is read.
    @Test func aFourMegabyteCertificateBombIsRefusedQuickly() throws {
        // The bomb certificate: the second of the 50-certificate fixture, cut out by hand since
        // the container refuses to list them.
        let bytes = try Self.hostile("certificate-bomb.receipt")
        let signerCertificate = try Self.certificate(at: 0, in: bytes)
        let bombCertificate = try Self.certificate(at: 1, in: bytes)
        #expect(bombCertificate.count > 1_000)
        let copies = 4_000_000 / bombCertificate.count + 1
        let sample = try ReceiptContainer.parse(fixture("sample.receipt"))
        guard case .issuerAndSerialNumber(let issuer, let serial) = try #require(sample.signers.first).identifier else { return }
        let input = DER.receipt(payload: sample.payload,
                                certificates: [signerCertificate] + Array(repeating: bombCertificate, count: copies),
                                issuer: Array(issuer), serial: Array(serial), signature: Array(sample.signers[0].signature))
        #expect(input.count > 4_000_000)
        let clock = ContinuousClock()
        for verifier in [try testRootVerifier(), ReceiptVerifier()] {
            var code: ReceiptError.Code?
            let elapsed = clock.measure { code = errorCode { try verifier.verifyAndDecode(input) } }
            #expect(code == .tooManyCertificates)
            #expect(elapsed < .seconds(1), "\(copies) certificates took \(elapsed)")
        }
    }

    /// The DER of the `index`th element of a receipt's certificates set, found by walking the
    /// envelope (ContentInfo → [0] → SignedData → fourth field).
    static func certificate(at index: Int, in bytes: [UInt8]) throws -> [UInt8] {
        try bytes.withUnsafeBufferPointer { buffer in
            let reader = ASN1Reader(buffer, rules: .distinguished)
            let contentInfo = try reader.onlyElement(in: 0..<bytes.count)
            var outer = reader.children(of: contentInfo)
            _ = try outer.next()
            let explicit = try #require(try outer.next())
            let signedData = try reader.onlyElement(in: explicit.contentRange)
            var fields = reader.children(of: signedData)
            for _ in 0..<3 { _ = try fields.next() }
            let set = try #require(try fields.next())
            var items = reader.children(of: set)
            for _ in 0..<index { _ = try items.next() }
            let element = try #require(try items.next())
            return Array(bytes[element.range])
        }
    }

    /// The chain cache is keyed by certificates and signer identifier, not by the SignerInfo's
    /// algorithm label: a relabelled receipt over a remembered chain is still refused.
    @Test func aRememberedChainDoesNotExcuseAWrongLabel() throws {
        let verifier = try testRootVerifier()
        _ = try verifier.verifyAndDecode(fixture("sample.receipt"))
        #expect(errorCode { try verifier.verifyAndDecode(Self.hostile("ecdsa-label-rsa-signature.receipt")) } == .unsupportedSignatureAlgorithm)
        _ = try verifier.verifyAndDecode(Self.hostile("ec-signer.receipt"))
        #expect(errorCode { try verifier.verifyAndDecode(Self.hostile("rsa-label-ec-signer.receipt")) } == .unsupportedSignatureAlgorithm)
        #expect(try verifier.verifyAndDecode(Self.hostile("ec-signer.receipt")).verification.chain.count == 3)
    }

    @Test func trustRefusalsAreNotAuthenticated() {
        for code in [ReceiptError.Code.tooManyCertificates, .keyNotAllowed] {
            #expect(VerifyReceiptResponse.Status(ReceiptError(code, "")) == .notAuthenticated)
        }
    }
}
