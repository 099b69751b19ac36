import Foundation
import Testing
@testable import ReceiptParser

struct RFC3339Tests {
    @Test(arguments: [
        ("2020-07-22T17:39:08Z", 1_595_439_548.0),
        ("2020-07-22T18:33:15+0100", 1_595_439_195.0),
        ("2020-07-22T18:33:15+01:00", 1_595_439_195.0),
        ("2020-07-22T12:33:15-0500", 1_595_439_195.0),
        ("2025-05-20T09:30:00.250Z", 1_747_733_400.25),
        ("2025-05-20t09:30:00.5z", 1_747_733_400.5),
        ("1970-01-01T00:00:00Z", 0.0),
        ("1969-12-31T23:59:59Z", -1.0),
        ("2024-02-29T00:00:00Z", 1_709_164_800.0),
        ("4001-01-01T00:00:00+0000", 64_092_211_200.0),
    ])
    func parses(_ text: String, _ epoch: Double) {
        #expect(RFC3339.date(from: text)?.timeIntervalSince1970 == epoch)
    }

    @Test(arguments: [
        "", "yesterday", "2020-07-22", "2020-07-22T17:39:08", "2020-07-22 17:39:08Z",
        "2020-13-01T00:00:00Z", "2023-02-29T00:00:00Z", "2020-04-31T00:00:00Z", "2020-07-22T24:00:00Z",
        "2020-07-22T17:60:00Z", "2020-07-22T17:39:08.Z", "2020-07-22T17:39:08+2400",
        "2020-07-22T17:39:08Zjunk", "2020-07-22T17:39:08+01", "+020-07-22T17:39:08Z",
        "2025-13-45T25:61:00Z",
    ])
    func rejects(_ text: String) {
        #expect(RFC3339.date(from: text) == nil)
    }

    @Test func formatsAndRoundTrips() throws {
        for text in ["2020-07-22T17:39:08Z", "2025-05-20T09:30:00.250Z", "1969-12-31T23:59:59Z", "4001-01-01T00:00:00Z"] {
            #expect(RFC3339.string(from: try #require(RFC3339.date(from: text))) == text)
        }
        #expect(RFC3339.string(from: try #require(RFC3339.date(from: "2020-07-22T18:33:15+0100"))) == "2020-07-22T17:33:15Z")
        // A fraction that rounds to a whole second carries into it, before and after 1970.
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: 59.9996)) == "1970-01-01T00:01:00Z")
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: -0.0004)) == "1970-01-01T00:00:00Z")
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: -0.25)) == "1969-12-31T23:59:59.750Z")
    }

    @Test func agreesWithFoundationOverManyDays() throws {
        // Foundation's formatter as an independent oracle for the calendar arithmetic.
        let formatter = ISO8601DateFormatter()
        var day = try #require(formatter.date(from: "1999-12-25T13:14:15Z"))
        for _ in 0..<1000 {
            let text = formatter.string(from: day)
            #expect(RFC3339.date(from: text) == day, "\(text)")
            #expect(RFC3339.string(from: day) == text)
            day += 86_400 * 11 + 3_601
        }
    }
}
