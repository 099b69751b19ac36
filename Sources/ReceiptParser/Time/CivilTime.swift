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

    /// `YYYY-MM-DD`, `separator`, `HH:MM:SS`.
    func text(separator: String) -> String {
        "\(Self.padded(year, 4))-\(Self.padded(month, 2))-\(Self.padded(day, 2))\(separator)"
            + "\(Self.padded(hour, 2)):\(Self.padded(minute, 2)):\(Self.padded(second, 2))"
    }

    /// `value` in decimal with leading zeros up to `width` digits.
    static func padded(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
