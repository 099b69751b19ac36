/// A date and a time of day on the proleptic Gregorian calendar, in no time zone of its own:
/// what UTC (or a wall clock, once shifted) shows at some second.
struct CivilTime: Hashable, Sendable {
    var year: Int
    var month: Int
    var day: Int
    var hour: Int
    var minute: Int
    var second: Int

    init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        (self.year, self.month, self.day) = (year, month, day)
        (self.hour, self.minute, self.second) = (hour, minute, second)
    }

    /// The civil time `seconds` after 1970-01-01T00:00:00 (before it, when negative).
    init(secondsSince1970 seconds: Int) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        (year, month, day) = GregorianCalendar.civilFromDays(days)
        (hour, minute, second) = (secondOfDay / 3600, secondOfDay / 60 % 60, secondOfDay % 60)
    }

    /// Seconds since 1970-01-01T00:00:00.
    var secondsSince1970: Int {
        GregorianCalendar.daysFromCivil(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
    }

    /// The most bytes ``write(separator:into:)`` writes: a year of up to 20 characters.
    static let maximumUTF8Count = 20 + 15

    /// `YYYY-MM-DD`, `separator`, `HH:MM:SS` in ASCII at `destination`; returns the length.
    func write(separator: UInt8, into destination: UnsafeMutablePointer<UInt8>) -> Int {
        var length = Self.write(year, width: 4, into: destination)
        // Unrolled: an array of the fields would be a heap allocation per date.
        func field(_ value: Int, after lead: UInt8) {
            destination[length] = lead
            length += 1 + Self.write(value, width: 2, into: destination + length + 1)
        }
        field(month, after: UInt8(ascii: "-"))
        field(day, after: UInt8(ascii: "-"))
        field(hour, after: separator)
        field(minute, after: UInt8(ascii: ":"))
        field(second, after: UInt8(ascii: ":"))
        return length
    }

    /// `value` in decimal, its digits zero-padded to `width` (a year before 0001 is `-0001`:
    /// the sign goes first); returns the length.
    static func write(_ value: Int, width: Int, into destination: UnsafeMutablePointer<UInt8>) -> Int {
        if value >= 0 && value < 100 && width == 2 {
            destination[0] = UInt8(ascii: "0") + UInt8(value / 10)
            destination[1] = UInt8(ascii: "0") + UInt8(value % 10)
            return 2
        }
        var sign = 0
        if value < 0 {
            destination[0] = UInt8(ascii: "-")
            sign = 1
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        return withUnsafeMutableBytes(of: &digits) { scratch in
            let scratch = scratch.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let length = JSONWriter.decimal(Int64(value.magnitude), into: scratch)
            let zeros = max(0, width - length)
            (destination + sign).initialize(repeating: UInt8(ascii: "0"), count: zeros)
            (destination + sign + zeros).initialize(from: scratch, count: length)
            return sign + zeros + length
        }
    }
}
