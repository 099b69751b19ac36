import Foundation
import Testing
@testable import ReceiptParser
import ReceiptTestSupport

/// The syntax of a compact JWS, refused before any signature math: each class of malformed
/// token with its code. Signed hostile tokens (chain, signature, kind) are TestReceipts/jws.
struct SignedDataSyntaxTests {
    static func base64url(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
    static func part(_ json: String) -> String { base64url(Array(json.utf8)) }
    static let header = part(#"{"alg":"ES256","x5c":["AAAA","AAAA","AAAA"]}"#)
    static let payload = part(#"{"transactionId":"1","signedDate":1700000000000}"#)
    static let signature = base64url([UInt8](repeating: 1, count: 64))

    static func code(_ token: String) -> ReceiptError.Code? {
        SignedDataVerifier().inspect(Array(token.utf8)).failure?.code
    }

    @Test func base64urlIsTheOneCanonicalText() throws {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let url = Self.base64url(bytes)
            #expect(JWSBase64.decode(Array(url.utf8)[...], .url) == bytes)
            let standard = Data(bytes).base64EncodedString()
            #expect(JWSBase64.decode(Array(standard.utf8)[...], .standard) == bytes)
        }
        // Unused bits set, padding in base64url, no padding in standard base64, either
        // alphabet's own characters in the other, whitespace, a lone final character.
        for (text, alphabet) in [("AB", JWSBase64.Alphabet.url), ("AAB", .url), ("AA==", .url), ("AA", .standard),
                                 ("-_==", .standard), ("+/AA", .url), ("AA AA", .url), ("AAAAA", .url), ("AB==", .standard)] {
            #expect(JWSBase64.decode(Array(text.utf8)[...], alphabet) == nil, "\(text)")
        }
        #expect(JWSBase64.decode(Array("AA".utf8)[...], .url) == [0])
        #expect(JWSBase64.decode(Array("AAA".utf8)[...], .url) == [0, 0])
    }

    @Test func es256SignaturesAreReencodedAsDER() throws {
        var raw = [UInt8](repeating: 0, count: 64)
        raw[31] = 5            // r = 5
        raw[32] = 0x80         // s has its high bit set: a zero byte keeps it positive
        let der = try ES256Signature.der(raw)
        #expect(der.prefix(5) == [0x30, 0x26, 0x02, 0x01, 0x05])
        #expect(der[5...7] == [0x02, 0x21, 0x00])
        #expect(der.count == 2 + 3 + 35)
        #expect(errorCode { try ES256Signature.der(der) } == .signatureInvalid)            // DER is not r||s
        #expect(errorCode { try ES256Signature.der([UInt8](repeating: 1, count: 63)) } == .signatureInvalid)
        #expect(errorCode { try ES256Signature.der([UInt8](repeating: 1, count: 65)) } == .signatureInvalid)
    }

    @Test func malformedTokensAreUnreadable() throws {
        let (h, p, s) = (Self.header, Self.payload, Self.signature)
        let cases: [(String, ReceiptError.Code)] = [
            ("", .malformedToken),
            ("\(h).\(p)", .malformedToken),                        // two parts
            ("\(h).\(p).\(s).\(s)", .malformedToken),              // four
            ("\(h)=.\(p).\(s)", .malformedToken),                  // padding
            ("\(h).\(p).\(s)==", .malformedToken),
            ("\(h).\(p.dropLast())+.\(s)", .malformedToken),       // standard alphabet
            ("\(h).\(p.dropLast())/.\(s)", .malformedToken),
            ("\(h).\(p.prefix(8)) \(p.dropFirst(8)).\(s)", .malformedToken),  // whitespace inside
            ("\(h).\(p.prefix(8))\n\(p.dropFirst(8)).\(s)", .malformedToken),
            ("\(Self.part("[1]")).\(p).\(s)", .malformedToken),    // not an object
            ("\(Self.part("\"x\"")).\(p).\(s)", .malformedToken),
            ("\(h).\(Self.part("not json")).\(s)", .invalidJSON),
            ("\(Self.base64url([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D])).\(p).\(s)", .malformedToken),  // {"\xFF":1}: not UTF-8
            ("\(Self.part(#"{"alg":"ES256","alg":"none","x5c":[]}"#)).\(p).\(s)", .duplicateKey),
            ("\(h).\(Self.part(#"{"transactionId":"1","transactionId":"2"}"#)).\(s)", .duplicateKey),
            ("\(h).\(Self.part(#"{"a":{"b":1,"\u0062":2}}"#)).\(s)", .duplicateKey),   // equal once unescaped, nested
        ]
        for (token, expected) in cases {
            let inspection = SignedDataVerifier().inspect(Array(token.utf8))
            #expect(inspection.failure?.code == expected, "\(token.prefix(80))")
            #expect(inspection.verdict == .unreadable, "\(token.prefix(80))")
        }
    }

    @Test func nestingAndSizeAreBounded() throws {
        func nested(_ depth: Int) -> String { "{\"transactionId\":\"1\",\"x\":" + String(repeating: "[", count: depth - 1) + String(repeating: "]", count: depth - 1) + "}" }
        let (h, s) = (Self.header, Self.signature)
        // 64 levels are read (and fail later, on the root); 65 are not.
        #expect(Self.code("\(h).\(Self.part(nested(64))).\(s)") == .untrustedChain)
        #expect(Self.code("\(h).\(Self.part(nested(65))).\(s)") == .invalidJSON)
        let big = String(repeating: "A", count: DecodingLimits.maximumTokenSize)
        #expect(Self.code("\(h).\(big).\(s)") == .tooLarge)
    }

    @Test func whitespaceAroundTheTokenIsFine() {
        let token = "\(Self.header).\(Self.payload).\(Self.signature)"
        #expect(Self.code(token) == .untrustedChain)        // read; x5c[2] is not Apple Root CA - G3
        #expect(Self.code(" \n\t\(token)\r\n ") == .untrustedChain)
    }

    @Test func headerRulesComeBeforeCertificates() {
        let (p, s) = (Self.payload, Self.signature)
        let cases: [(String, ReceiptError.Code)] = [
            (#"{"x5c":["AAAA","AAAA","AAAA"]}"#, .unsupportedSignatureAlgorithm),
            (#"{"alg":"none","x5c":["AAAA","AAAA","AAAA"]}"#, .unsupportedSignatureAlgorithm),
            (#"{"alg":"HS256","x5c":["AAAA","AAAA","AAAA"]}"#, .unsupportedSignatureAlgorithm),
            (#"{"alg":"ES384","x5c":["AAAA","AAAA","AAAA"]}"#, .unsupportedSignatureAlgorithm),
            (#"{"alg":"es256","x5c":["AAAA","AAAA","AAAA"]}"#, .unsupportedSignatureAlgorithm),
            (#"{"alg":"ES256","crit":["b64"],"b64":false,"x5c":["AAAA","AAAA","AAAA"]}"#, .unsupportedCriticalHeader),
            (#"{"alg":"ES256"}"#, .untrustedChain),
            (#"{"alg":"ES256","x5c":"AAAA"}"#, .untrustedChain),
            (#"{"alg":"ES256","x5c":["AAAA","AAAA"]}"#, .untrustedChain),
            (#"{"alg":"ES256","x5c":["AAAA","AAAA","AAAA","AAAA"]}"#, .untrustedChain),
            (#"{"alg":"ES256","x5c":["AAAA",1,"AAAA"]}"#, .invalidCertificate),
            (#"{"alg":"ES256","x5c":["AA AA","AAAA","AAAA"]}"#, .invalidCertificate),
            (#"{"alg":"ES256","x5c":["AA","AAAA","AAAA"]}"#, .invalidCertificate),
            (#"{"alg":"ES256","kid":"x","x5c":["AAAA","AAAA","AAAA"]}"#, .untrustedChain),  // kid ignored; AAAA is not G3
        ]
        for (header, expected) in cases {
            let inspection = SignedDataVerifier().inspect(Array("\(Self.part(header)).\(p).\(s)".utf8))
            #expect(inspection.failure?.code == expected, "\(header)")
            #expect(inspection.verdict == .notVerified, "\(header)")
        }
    }

    @Test func inputsAreRoutedByTheirShape() throws {
        let token = Array("\(Self.header).\(Self.payload).\(Self.signature)".utf8)
        #expect(SignedDataInput.isSignedData(token))
        #expect(SignedDataInput.isSignedData(Array(#"{"signedPayload":"a.b.c"}"#.utf8)))
        #expect(!SignedDataInput.isSignedData(Array(#"{"receipt-data":"MIIA","signedPayload":"x"}"#.utf8)))
        #expect(!SignedDataInput.isSignedData(try fixture("sample.receipt")))
        #expect(!SignedDataInput.isSignedData(Array(try sampleBase64().utf8)))
        #expect(!SignedDataInput.isSignedData(Array("  eyJhbGciOiJFUzI1NiJ9".utf8)))                    // no dot
        #expect(!SignedDataInput.isSignedData(Array("e3b0c442  sample.receipt\n".utf8)))              // a checksum line
        #expect(SignedDataInput.isSignedData(Array(" \n\(Self.header).\(Self.payload) x.\(Self.signature)\n".utf8)))
    }

    @Test func jsonBodiesAreStrictAndEveryTokenCounts() throws {
        let token = "\(Self.header).\(Self.payload).\(Self.signature)"
        let verifier = SignedDataVerifier()
        let duplicate = verifier.inspectAll(Array(#"{"signedPayload":"\#(token)","signedPayload":"\#(token)"}"#.utf8))
        #expect(duplicate.map { $0.failure?.code } == [.duplicateKey])
        #expect(duplicate.map(\.verdict) == [.unreadable])
        let none = verifier.inspectAll(Array(#"{"other":1}"#.utf8))
        #expect(none.map { $0.failure?.code } == [.malformedToken])
        let list = verifier.inspectAll(Array(#"{"signedTransactions":["\#(token)",7,"\#(token)"]}"#.utf8))
        #expect(list.map(\.member) == ["signedTransactions[0]", "signedTransactions[1]", "signedTransactions[2]"])
        #expect(list.map { $0.failure?.code } == [.untrustedChain, .wrongValueType, .untrustedChain])
        let both = verifier.inspectAll(Array(#"{"signedRenewalInfo":"\#(token)","signedTransactionInfo":"\#(token)"}"#.utf8))
        #expect(both.map(\.member) == ["signedTransactionInfo", "signedRenewalInfo"])
        #expect(both.map(\.expectedKind) == [.transaction, .renewalInfo])
    }
}
