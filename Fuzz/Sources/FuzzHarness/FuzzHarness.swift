// The body of every fuzz target, shared with the unit tests.
//
// This file is compiled twice: into Fuzz/ (the FuzzHarness library the libFuzzer executables
// call) and into the unit tests, through the symlink Tests/ReceiptParserTests/FuzzHarness.swift,
// which replay Fuzz/regressions with it. Keep it free of anything but the public API.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReceiptParser

/// The fuzz targets.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// Bytes → input detection → container → verification against the test PKI → payload,
    /// with and without the verifier's chain cache (which must agree); and the container's
    /// payload decoded unverified, so mutations reach the decoder too.
    case pipeline
    /// `ReceiptPayloadDecoder.decode` alone.
    case payload
    /// `ReceiptInput.receiptBytes(from:)` (raw / base64 / request body), then the container;
    /// and the strict JSON reader, whose values must read back equal from their rendering.
    case input
}

/// Runs one input through one target and describes what happened.
///
/// A thrown `ReceiptError` is a normal outcome, recorded by its code. Anything else a target
/// could do wrong (a trap, a sanitizer report, an error of another type) is a finding: traps
/// and sanitizers stop the process on their own, other errors stop it here.
public struct FuzzHarness: Sendable {
    /// Shared across inputs, as a server shares one, so its chain cache fills and evicts.
    let verifier: ReceiptVerifier
    /// The same anchor without a chain cache: the cache must never change a verdict.
    let uncachedVerifier: ReceiptVerifier

    /// `testRoot` is TestReceipts/pki/test-root.der (DER or PEM).
    public init(testRoot: [UInt8]) throws {
        let anchor = try TrustAnchor.appStore(rootCertificate: testRoot)
        verifier = ReceiptVerifier(anchor: anchor, chainCacheCapacity: 4)
        uncachedVerifier = ReceiptVerifier(anchor: anchor, chainCacheCapacity: 0)
    }

    /// The outcome of `bytes` under `target`: `ok` or a ReceiptError code per stage, stages
    /// separated by `/` (pipeline: verifyAndDecode / unverified payload decode; input:
    /// receiptBytes / container parse; payload: decode). `-` marks a stage not reached.
    public func run(_ target: FuzzTarget, _ bytes: [UInt8]) -> String {
        switch target {
        case .pipeline:
            let cached = Self.verifyAndDecode(verifier, bytes)
            let uncached = Self.verifyAndDecode(uncachedVerifier, bytes)
            guard cached == uncached else {
                fatalError("the chain cache changed a verdict: \(cached) with it, \(uncached) without")
            }
            let verified = outcome { () throws(ReceiptError) in
                let result = try cached.get()
                try exercise(result.receipt)
                _ = result.verification.chain.map { ($0.subject, $0.sha256) }
            }
            var container: ReceiptContainer?
            _ = outcome { () throws(ReceiptError) in
                container = try ReceiptContainer.parse(ReceiptInput.receiptBytes(from: bytes))
            }
            let decoded = container.map { container in
                outcome { () throws(ReceiptError) in try exercise(ReceiptPayloadDecoder.decode(container.payload)) }
            } ?? "-"
            return "\(verified)/\(decoded)"
        case .payload:
            return outcome { () throws(ReceiptError) in try exercise(ReceiptPayloadDecoder.decode(bytes)) }
        case .input:
            Self.exerciseStrictJSON(bytes)
            var receiptBytes: [UInt8]?
            let read = outcome { () throws(ReceiptError) in receiptBytes = try ReceiptInput.receiptBytes(from: bytes) }
            // Every reader of request bodies must find the same receipt (or refuse the body).
            if let request = try? VerifyReceiptRequest.parse(bytes), let receiptBytes, receiptBytes != request.receiptData {
                fatalError("ReceiptInput and VerifyReceiptRequest read different receipts from one body")
            }
            let parsed = receiptBytes.map { receiptBytes in
                outcome { () throws(ReceiptError) in _ = try ReceiptContainer.parse(receiptBytes) }
            } ?? "-"
            return "\(read)/\(parsed)"
        }
    }

    /// A value the strict reader accepts renders to text it reads back to the same value, and
    /// the rendering is stable.
    private static func exerciseStrictJSON(_ bytes: [UInt8]) {
        guard let value = try? StrictJSON.parse(bytes) else { return }
        let text = value.rendered()
        do throws(ReceiptError) {
            let again = try StrictJSON.parse(Array(text.utf8))
            guard again == value, again.rendered() == text else {
                fatalError("a JSON value changes when rendered and read again: \(text.prefix(200))")
            }
        } catch {
            fatalError("the rendering of a JSON value is refused (\(error)): \(text.prefix(200))")
        }
    }

    private static func verifyAndDecode(_ verifier: ReceiptVerifier, _ bytes: [UInt8]) -> Result<VerifiedReceipt, ReceiptError> {
        do throws(ReceiptError) {
            return .success(try verifier.verifyAndDecode(bytes))
        } catch {
            return .failure(error)
        }
    }

    /// Reads every part of a decoded receipt the way a caller would, including its JSON form.
    private func exercise(_ receipt: Receipt) throws(ReceiptError) {
        // The raw attributes are read back lazily from the payload: every set must give back
        // as many as it counts, and survive JSON (which re-encodes them) unchanged.
        let sets = [receipt.attributes] + receipt.inAppPurchases.map(\.attributes)
        for set in sets where Array(set).count != set.count {
            fatalError("a raw attribute set reads back \(Array(set).count) attributes, counts \(set.count)")
        }
        do {
            let json = try JSONEncoder().encode(receipt)
            let decoded = try JSONDecoder().decode(Receipt.self, from: json)
            let decodedSets = [decoded.attributes] + decoded.inAppPurchases.map(\.attributes)
            guard decodedSets.map(Array.init) == sets.map(Array.init) else {
                fatalError("raw attributes change through JSON")
            }
        } catch {
            fatalError("a decoded receipt does not round-trip through JSON: \(error)")
        }
    }

    private func outcome(_ body: () throws(ReceiptError) -> Void) -> String {
        do {
            try body()
            return "ok"
        } catch {
            return error.code.name
        }
    }
}
