import Foundation
import Testing
@testable import ReceiptParser
import ReceiptTestSupport

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

extension RFC3339Tests {
    /// `YYYY-MM-DDTHH:MM:SSZ` has its own fast reader; the same instant written `+00:00` goes
    /// through the general one. Both must agree with the independent formatter everywhere.
    @Test func theAppStoreFormAgreesWithTheGeneralReader() throws {
        var generator = SystemRandomNumberGenerator()
        let first = -62_135_596_800  // 0001-01-01T00:00:00Z
        let last = 253_402_300_799  // 9999-12-31T23:59:59Z
        var instants = [first, last, 0, -1, 951_782_400, -2_203_891_200]  // + 2000-02-29, 1900-03-01
        for _ in 0..<20_000 { instants.append(Int.random(in: first...last, using: &generator)) }
        for instant in instants {
            let date = Date(timeIntervalSince1970: Double(instant))
            let text = RFC3339.string(from: date)
            #expect(text.utf8.count == 20)
            #expect(RFC3339.date(from: text) == date, "\(text)")
            #expect(RFC3339.date(from: text.dropLast() + "+00:00") == date, "\(text)")
        }
        // Leap days, only where they exist; year 0 (a leap year) goes to the general reader.
        #expect(RFC3339.date(from: "2000-02-29T00:00:00Z")?.timeIntervalSince1970 == 951_782_400)
        #expect(RFC3339.date(from: "1900-02-29T00:00:00Z") == nil)
        #expect(RFC3339.date(from: "2100-02-29T00:00:00Z") == nil)
        #expect(RFC3339.date(from: "0000-02-29T00:00:00Z") == RFC3339.date(from: "0000-02-29T00:00:00+00:00"))
        #expect(RFC3339.date(from: "0000-02-29T00:00:00Z") != nil)
        #expect(RFC3339.date(from: "2024-06-30T23:59:60Z")?.timeIntervalSince1970 == 1_719_792_000)
        for bad in ["2024-06-30T23:59:6aZ", "2024-06-30 23:59:59Z", "2024-06-3/T23:59:59Z", "2024-00-10T00:00:00Z",
                    "2024-06-00T00:00:00Z", "2024-06-31T00:00:00Z", "2024-06-30T24:00:00Z", "2024-06-30T23:59:61Z"] {
            #expect(RFC3339.date(from: bad) == nil, "\(bad)")
        }
    }

    /// Every date read can be written back: instants an offset carries out of the years
    /// 0000-9999 (in UTC, to the millisecond) are not dates; the ones at the edges round-trip.
    @Test func everyDateReadCanBeWrittenBack() {
        #expect(RFC3339.date(from: "0000-01-01T00:00:00+23:59") == nil)  // year -1 in UTC
        #expect(RFC3339.date(from: "9999-12-31T23:59:59-00:01") == nil)  // year 10000
        #expect(RFC3339.date(from: "9999-12-31T23:59:59.9996Z") == nil)  // 10000 once rounded to ms
        for edge in ["0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z", "0000-01-01T00:00:00-00:01"] {
            let date = RFC3339.date(from: edge)
            #expect(date != nil, "\(edge)")
            #expect(date.flatMap { RFC3339.date(from: RFC3339.string(from: $0)) } == date, "\(edge)")
        }
        #expect(RFC3339.string(from: RFC3339.date(from: "0000-01-01T00:00:00Z")!) == "0000-01-01T00:00:00Z")
    }

    /// StoreKit 2's milliseconds are read in the same years, and a Date from elsewhere beyond
    /// any calendar is written (bounded) instead of trapping.
    @Test func millisecondsAreReadOnlyWithinTheYearsWritten() throws {
        #expect(UnixMilliseconds.date(from: "1e300") == nil)
        #expect(UnixMilliseconds.date(from: "253402300800000") == nil)  // 10000-01-01
        #expect(UnixMilliseconds.date(from: "-62167219200001") == nil)  // before 0000
        #expect(UnixMilliseconds.date(from: "nan") == nil)
        let edge = try #require(UnixMilliseconds.date(from: "253402300799000"))
        #expect(RFC3339.string(from: edge) == "9999-12-31T23:59:59Z")
        // The last millisecond of 9999 is read and written back as itself, in every reader.
        let last = try #require(UnixMilliseconds.date(from: "253402300799999"))
        #expect(RFC3339.string(from: last) == "9999-12-31T23:59:59.999Z")
        #expect(UnixMilliseconds.date(from: "253402300799999.5") == nil)
        #expect(UnixMilliseconds.date(from: "1760592122788.25").map(RFC3339.string(from:)) == "2025-10-16T05:22:02.788Z")
        for wild in [1e300, -1e300, .infinity, .nan] {
            #expect(RFC3339.string(from: Date(timeIntervalSince1970: wild)).utf8.count <= RFC3339.maximumUTF8Count)
        }
    }
}
