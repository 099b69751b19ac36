import Foundation
import Testing
@testable import ReceiptParser
import ReceiptTestSupport

/// Apple-compatible JSON, checked against Apple's own verifyReceipt answer.
struct VerifyReceiptResponseTests {
    func parse(_ text: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(text.utf8)) as! [String: Any]
    }

    /// The answer, read back by the strict reader (which refuses duplicate keys).
    static func answer(_ outcome: Result<VerifiedReceipt, ReceiptError>, expecting expected: Environment? = nil) throws -> StrictJSON.Value {
        try StrictJSON.parse(Array(VerifyReceiptResponse.text(for: outcome, expecting: expected).utf8))
    }

    @Test(.enabled(if: Paths.corpusAvailable, Paths.corpusMissing))
    func matchesApplesResponseKeyForKey() throws {
        let name = "sandbox-20200722T1739-com.revenuecat.sampleapp"
        let receiptBytes = [UInt8](try Data(contentsOf: Paths.corpus.appendingPathComponent("real/\(name).receipt")))
        let appleData = try Data(contentsOf: Paths.corpus.appendingPathComponent("apple-verifyreceipt/\(name).verifyReceipt.json"))
        var apple = try JSONSerialization.jsonObject(with: appleData) as! [String: Any]

        let ours = try parse(VerifyReceiptResponse.text(for: .success(ReceiptVerifier().verifyAndDecode(receiptBytes))))
        // Keys only Apple's servers can know, and the request time.
        for key in ["latest_receipt_info", "latest_receipt", "pending_renewal_info"] { apple[key] = nil }
        var appleReceipt = apple["receipt"] as! [String: Any]
        var ourReceipt = ours["receipt"] as! [String: Any]
        for key in ["request_date", "request_date_ms", "request_date_pst"] {
            #expect(ourReceipt[key] != nil)
            appleReceipt[key] = nil
            ourReceipt[key] = nil
        }
        #expect(Set(ours.keys) == Set(apple.keys))
        #expect(ours["status"] as? Int == 0)
        #expect(ours["environment"] as? String == apple["environment"] as? String)

        let appleInApp = appleReceipt.removeValue(forKey: "in_app") as! [[String: Any]]
        let ourInApp = ourReceipt.removeValue(forKey: "in_app") as! [[String: Any]]
        #expect(Set(ourReceipt.keys) == Set(appleReceipt.keys))
        for (key, value) in appleReceipt {
            #expect(String(describing: ourReceipt[key] ?? "missing") == String(describing: value), "receipt.\(key)")
            #expect(type(of: ourReceipt[key] ?? "") == type(of: value), "receipt.\(key) type")
        }
        try #require(ourInApp.count == appleInApp.count)
        for (index, (mine, theirs)) in zip(ourInApp, appleInApp).enumerated() {
            #expect(Set(mine.keys) == Set(theirs.keys), "in_app[\(index)] keys")
            for (key, value) in theirs {
                #expect(mine[key] as? String == value as? String, "in_app[\(index)].\(key)")
            }
        }
    }

    @Test func statusCodes() throws {
        let sample = try testRootVerifier().verifyAndDecode(fixture("sample.receipt"))
        #expect(try Self.answer(.success(sample))["status"] == .number("0"))
        #expect(try Self.answer(.success(sample), expecting: .sandbox)["status"] == .number("0"))
        #expect(try Self.answer(.success(sample), expecting: .production)["status"] == .number("21007"))
        #expect(VerifyReceiptResponse.text(for: .success(sample), expecting: .production) == "{\"status\":21007}")
        var production = sample.receipt
        production.receiptType = "Production"
        let productionReceipt = VerifiedReceipt(receipt: production, verification: sample.verification)
        #expect(try Self.answer(.success(productionReceipt), expecting: .sandbox)["status"] == .number("21008"))
        #expect(try Self.answer(.success(productionReceipt))["environment"] == .string("Production"))

        func status(of name: String) throws -> StrictJSON.Value? {
            let outcome = Result { try testRootVerifier().verifyAndDecode(fixture(name)) }.mapError { $0 as! ReceiptError }
            return try Self.answer(outcome)["status"]
        }
        #expect(try status(of: "not-pkcs7.bin") == .number("21002"))
        #expect(try status(of: "bad-purchase-date.receipt") == .number("21002"))
        #expect(try status(of: "tampered-payload.receipt") == .number("21003"))
        #expect(try status(of: "wrong-root.receipt") == .number("21003"))
    }

    @Test func sampleEntriesUseApplesFormats() throws {
        let receipt = try testRootVerifier().verifyAndDecode(fixture("sample.receipt")).receipt
        var writer = JSONWriter()
        VerifyReceiptResponse.writeReceipt(receipt, requestDate: Date(timeIntervalSince1970: 0), to: &writer)
        let json = try parse(writer.finishString())
        #expect(json["app_item_id"] as? Int == 0)
        #expect(json["receipt_creation_date"] as? String == "2025-06-01 12:00:00 Etc/GMT")
        #expect(json["receipt_creation_date_pst"] as? String == "2025-06-01 05:00:00 America/Los_Angeles")
        #expect(json["request_date_pst"] as? String == "1969-12-31 16:00:00 America/Los_Angeles")
        let inApp = json["in_app"] as! [[String: Any]]
        #expect(inApp[0]["quantity"] as? String == "3")
        #expect(inApp[0]["expires_date"] == nil)
        #expect(inApp[0]["web_order_line_item_id"] == nil)
        #expect(inApp[0]["is_in_intro_offer_period"] == nil)
        #expect(inApp[1]["purchase_date_ms"] as? String == "1747733400250")
        #expect(inApp[1]["web_order_line_item_id"] as? String == "5000000000123456")
        #expect(inApp[1]["is_trial_period"] as? String == "true")
        #expect(inApp[1]["promotional_offer_id"] as? String == "com.example.pro.winback")
        #expect(inApp[2]["cancellation_date"] as? String == "2025-04-10 07:00:00 Etc/GMT")
        #expect(inApp[2]["cancellation_date_pst"] as? String == "2025-04-10 00:00:00 America/Los_Angeles")
    }

    @Test(arguments: [
        // (UTC, Los Angeles): around the 2007+ and the 1987-2006 switches.
        ("2020-03-08T09:59:59Z", "2020-03-08 01:59:59"), ("2020-03-08T10:00:00Z", "2020-03-08 03:00:00"),
        ("2020-11-01T08:59:59Z", "2020-11-01 01:59:59"), ("2020-11-01T09:00:00Z", "2020-11-01 01:00:00"),
        ("2006-04-02T10:00:00Z", "2006-04-02 03:00:00"), ("2006-10-29T09:00:00Z", "2006-10-29 01:00:00"),
        ("2013-08-01T07:00:00Z", "2013-08-01 00:00:00"), ("2015-01-15T12:00:00Z", "2015-01-15 04:00:00"),
    ])
    func pacificTimeFollowsDaylightSaving(_ utc: String, _ local: String) throws {
        let date = try #require(RFC3339.date(from: utc))
        var purchase = InAppPurchase()
        purchase.purchaseDate = date
        var writer = JSONWriter()
        VerifyReceiptResponse.writeInApp(purchase, to: &writer)
        #expect(try StrictJSON.parse(writer.finish())["purchase_date_pst"] == .string(local + " America/Los_Angeles"))
    }

    /// The earliest date a receipt can carry is in year 0 in UTC and year -1 in Los Angeles:
    /// the sign comes before the padded digits.
    @Test func aDateBeforeYearOneKeepsItsSignFirst() throws {
        var purchase = InAppPurchase()
        purchase.purchaseDate = try #require(RFC3339.date(from: "0000-01-01T00:00:00Z"))
        var writer = JSONWriter()
        VerifyReceiptResponse.writeInApp(purchase, to: &writer)
        let entry = try StrictJSON.parse(writer.finish())
        #expect(entry["purchase_date"] == .string("0000-01-01 00:00:00 Etc/GMT"))
        #expect(entry["purchase_date_pst"] == .string("-0001-12-31 16:00:00 America/Los_Angeles"))
    }

    /// The indented layout (receipt-dump on a terminal) is the compact text with whitespace
    /// between the tokens only: the same values, in the same order.
    @Test func theIndentedAnswerIsTheCompactOneLaidOut() throws {
        let sample = try testRootVerifier().verifyAndDecode(fixture("sample.receipt"))
        let date = Date(timeIntervalSince1970: 1_750_000_000)
        let compact = VerifyReceiptResponse.text(for: .success(sample), requestDate: date)
        let indented = VerifyReceiptResponse.text(for: .success(sample), requestDate: date, layout: .indented)
        #expect(indented.contains("\n    \"in_app\" : [\n      {\n        \"quantity\" : \"3\","))
        var outside = ""
        var inString = false
        var escaped = false
        for character in indented {
            if inString {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
                outside.append(character)
            } else if character == "\"" {
                inString = true
                outside.append(character)
            } else if !character.isWhitespace {
                outside.append(character)
            }
        }
        #expect(outside == compact)
    }

    @Test(.enabled(if: TimeZone(identifier: "America/Los_Angeles") != nil, "no tz database on this machine"))
    func pacificTimeAgreesWithTheTimeZoneDatabase() throws {
        // Foundation's tz database as an independent oracle over 20 years.
        let zone = try #require(TimeZone(identifier: "America/Los_Angeles"))
        var seconds = 1_000_000_000
        while seconds < 1_700_000_000 {
            #expect(PacificTime.offset(atUTC: seconds) == zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds))), "\(seconds)")
            seconds += 3_600 * 37
        }
    }
}
