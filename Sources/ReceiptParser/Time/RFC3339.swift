#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads the RFC 3339 timestamps of receipt date attributes, without Foundation's formatters
/// (which cost about 60 µs a call on Linux; see TOOLCHAIN.md).
///
/// Accepted: `YYYY-MM-DDTHH:MM:SS`, optional fraction `.d…` (any number of digits), then `Z`,
/// `±HH:MM` or `±HHMM` (Apple's Xcode receipts write `+0100`). `T`/`Z` may be lower case. The
/// instant must fall within the years 0000 to 9999 in UTC, so that every date read can be
/// written back (``string(from:)``).
public enum RFC3339 {
    /// The instant written in `text`, or nil when it is not an RFC 3339 timestamp.
    public static func date(from text: String) -> Date? {
        let bytes = Array(text.utf8)
        return parse(bytes, 0..<bytes.count)
    }

    /// `date` in UTC as `YYYY-MM-DDTHH:MM:SSZ`, with milliseconds when it has a fraction.
    public static func string(from date: Date) -> String {
        String(unsafeUninitializedCapacity: maximumUTF8Count) { write(date, into: $0.baseAddress!) }
    }

    /// The most bytes ``write(_:into:)`` writes.
    static let maximumUTF8Count = CivilTime.maximumUTF8Count + 5

    /// ``string(from:)``'s text in ASCII at `destination`; returns the length.
    ///
    /// - Parameter alwaysMilliseconds: writes `.000` too (StoreKit 2 dates are milliseconds:
    ///   every one is shown with them).
    static func write(_ date: Date, alwaysMilliseconds: Bool = false, into destination: UnsafeMutablePointer<UInt8>) -> Int {
        // Round once, to whole milliseconds, so a fraction like .9996 carries into the second.
        // A Date made elsewhere (a caller's, a Codable one) may lie beyond any calendar: clamp
        // it to about ±285 000 years so it is written, wrongly but boundedly, instead of trapping.
        let limit = 9.0e15
        let scaled = date.timeIntervalSince1970 * 1000
        let total = Int(scaled.isNaN ? 0 : min(max(scaled, -limit), limit).rounded())
        let whole = total >= 0 ? total / 1000 : (total - 999) / 1000
        let milliseconds = total - whole * 1000
        var length = CivilTime(secondsSince1970: whole).write(separator: UInt8(ascii: "T"), into: destination)
        if milliseconds > 0 || alwaysMilliseconds {
            destination[length] = UInt8(ascii: ".")
            length += 1 + CivilTime.write(milliseconds, width: 3, into: destination + length + 1)
        }
        destination[length] = UInt8(ascii: "Z")
        return length + 1
    }

    /// The instant written in `bytes[range]`, or nil when it is not such a timestamp.
    static func parse(_ bytes: [UInt8], _ range: Range<Int>) -> Date? {
        bytes.withUnsafeBufferPointer { parse($0, range) }
    }

    /// The instant written in UTF-8 `bytes`, or nil (for benchmarks comparing decoders).
    @_spi(Benchmarks) public static func date(utf8 bytes: ArraySlice<UInt8>) -> Date? {
        bytes.withUnsafeBufferPointer { parse($0, 0..<$0.count) }
    }

    /// The instant written in `bytes[range]`, or nil when it is not such a timestamp.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Date? {
        if range.count == 20, let date = parseAppStoreForm(UnsafeBufferPointer(rebasing: bytes[range])) {
            return date
        }
        var cursor = range.lowerBound
        let end = range.upperBound

        func digits(_ count: Int) -> Int? {
            guard end - cursor >= count else { return nil }
            var value = 0
            for _ in 0..<count {
                let digit = Int(bytes[cursor]) &- 0x30
                guard digit >= 0, digit <= 9 else { return nil }
                value = value * 10 + digit
                cursor += 1
            }
            return value
        }
        func expect(_ character: UInt8, or alternative: UInt8? = nil) -> Bool {
            guard cursor < end, bytes[cursor] == character || bytes[cursor] == alternative else { return false }
            cursor += 1
            return true
        }

        guard let year = digits(4), expect(UInt8(ascii: "-")),
              let month = digits(2), expect(UInt8(ascii: "-")),
              let day = digits(2), expect(UInt8(ascii: "T"), or: UInt8(ascii: "t")),
              let hour = digits(2), expect(UInt8(ascii: ":")),
              let minute = digits(2), expect(UInt8(ascii: ":")),
              let second = digits(2)
        else { return nil }
        guard (1...12).contains(month), (1...GregorianCalendar.daysInMonth(year: year, month: month)).contains(day),
              hour <= 23, minute <= 59, second <= 60
        else { return nil }

        var fraction = 0.0
        if cursor < end, bytes[cursor] == UInt8(ascii: ".") {
            cursor += 1
            var scale = 0.1
            let first = cursor
            while cursor < end, bytes[cursor] >= 0x30, bytes[cursor] <= 0x39 {
                fraction += Double(bytes[cursor] - 0x30) * scale
                scale /= 10
                cursor += 1
            }
            guard cursor > first else { return nil }
        }

        var offsetSeconds = 0
        guard cursor < end else { return nil }
        switch bytes[cursor] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            cursor += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = bytes[cursor] == UInt8(ascii: "-") ? -1 : 1
            cursor += 1
            guard let offsetHours = digits(2) else { return nil }
            _ = expect(UInt8(ascii: ":"))
            guard let offsetMinutes = digits(2), offsetHours <= 23, offsetMinutes <= 59 else { return nil }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        default:
            return nil
        }
        guard cursor == end else { return nil }

        let seconds = CivilTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second).secondsSince1970
            - offsetSeconds
        let instant = Double(seconds) + fraction
        // An offset can carry year 0000 or 9999 past the years RFC 3339 writes (0000-9999, in
        // UTC, to the millisecond as ``string(from:)`` writes it): such an instant could be read
        // but never shown or sent back as a date, so it is not one.
        let milliseconds = (instant * 1000).rounded()
        guard milliseconds >= Self.firstMillisecond, milliseconds <= Self.lastMillisecond else { return nil }
        return Date(timeIntervalSince1970: instant)
    }

    /// 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z, in milliseconds since 1970.
    static let firstMillisecond: Double = -62_167_219_200_000
    static let lastMillisecond: Double = 253_402_300_799_999

    /// `YYYY-MM-DDTHH:MM:SSZ`, the form nearly every receipt date takes, read in one pass with
    /// no branch per digit; anything else (or an out-of-range field) goes to the general parser.
    @inline(__always)
    private static func parseAppStoreForm(_ text: UnsafeBufferPointer<UInt8>) -> Date? {
        guard text[4] == UInt8(ascii: "-"), text[7] == UInt8(ascii: "-"), text[10] == UInt8(ascii: "T"),
              text[13] == UInt8(ascii: ":"), text[16] == UInt8(ascii: ":"), text[19] == UInt8(ascii: "Z")
        else { return nil }
        var notDigit: UInt8 = 0
        @inline(__always) func digit(_ index: Int) -> Int {
            let value = text[index] &- 0x30
            notDigit |= value > 9 ? 1 : 0
            return Int(value)
        }
        let year = digit(0) * 1000 + digit(1) * 100 + digit(2) * 10 + digit(3)
        let month = digit(5) * 10 + digit(6)
        let day = digit(8) * 10 + digit(9)
        let hour = digit(11) * 10 + digit(12)
        let minute = digit(14) * 10 + digit(15)
        let second = digit(17) * 10 + digit(18)
        guard notDigit == 0, year >= 1, month >= 1, month <= 12, day >= 1, day <= 28 || day <= GregorianCalendar.daysInMonth(year: year, month: month),
              hour <= 23, minute <= 59, second <= 60
        else { return nil }
        // Days since 1970-01-01 by the same algorithm as GregorianCalendar.daysFromCivil, in unsigned arithmetic:
        // the year is 1...9999 here (year 0 goes to the general parser), so nothing is negative.
        let marchYear = UInt(month <= 2 ? year - 1 : year)
        let era = marchYear / 400
        let yearOfEra = marchYear - era * 400
        let dayOfYear = (153 * UInt(month > 2 ? month - 3 : month + 9) + 2) / 5 + UInt(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = Int(era * 146_097 + dayOfEra) - 719_468
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3600 + minute * 60 + second))
    }
}
