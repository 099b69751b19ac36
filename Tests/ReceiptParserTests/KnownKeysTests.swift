import Foundation
import Testing
@testable import ReceiptParser
import ReceiptTestSupport

/// The member names the JSON reader reuses for StoreKit payloads instead of allocating each.
struct KnownKeysTests {
    /// Every member name longer than 15 bytes that a StoreKit model reads is listed (a missing
    /// one costs an allocation per token, not a wrong answer).
    @Test func everyLongMemberNameTheModelsReadIsListed() throws {
        let folder = Paths.repository.appendingPathComponent("Sources/ReceiptParser/Model/StoreKit")
        let pattern = try Regex(#"fields\.[a-zA-Z0-9]+(<[^>]*>)?\("([A-Za-z0-9]+)""#)
        var long: Set<String> = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".swift") {
            let source = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for match in source.matches(of: pattern) {
                if let name = match.output[2].substring.map(String.init), name.utf8.count > 15 { long.insert(name) }
            }
        }
        #expect(long.count > 40)
        for name in long.sorted() { #expect(StrictJSON.KnownKeys.storeKitMembers.contains(name), "\(name)") }
    }

    /// A reused key reads as the same value as one made from the bytes, and is still compared as
    /// bytes: the same name spelt with an escape is a duplicate.
    @Test func reusedKeysReadAsTheirBytes() throws {
        let json = Array(#"{"originalTransactionId":"1","originalTransactionIdX":"2","originalPurchaseDat\u0065":3}"#.utf8)
        let read = try StrictJSON.parse(json, knownKeys: .storeKitMembers)
        #expect(read == (try StrictJSON.parse(json)))
        guard case .object(let members) = read else { Issue.record("not an object"); return }
        #expect(members.map(\.key) == ["originalTransactionId", "originalTransactionIdX", "originalPurchaseDate"])
        let twice = Array(#"{"originalTransactionId":"1","originalTransactionI\u0064":"2"}"#.utf8)
        #expect(errorCode { try StrictJSON.parse(twice, knownKeys: .storeKitMembers) } == .duplicateKey)
    }
}
