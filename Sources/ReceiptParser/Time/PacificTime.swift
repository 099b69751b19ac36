/// America/Los_Angeles by the US daylight-saving rules, computed rather than read from the
/// host's time zone database, so output is the same on every machine.
enum PacificTime {
    /// Seconds to add to UTC: -8 h, or -7 h while daylight saving is in force.
    static func offset(atUTC seconds: Int) -> Int {
        let standard = -8 * 3600
        let year = CivilTime(secondsSince1970: seconds).year
        let (start, end): (Int, Int)
        if year >= 2007 {       // second Sunday of March to first Sunday of November
            start = sunday(year: year, month: 3, occurrence: 2)
            end = sunday(year: year, month: 11, occurrence: 1)
        } else if year >= 1987 { // first Sunday of April to last Sunday of October
            start = sunday(year: year, month: 4, occurrence: 1)
            end = sunday(year: year, month: 10, occurrence: -1)
        } else {                 // last Sunday of April to last Sunday of October
            start = sunday(year: year, month: 4, occurrence: -1)
            end = sunday(year: year, month: 10, occurrence: -1)
        }
        // Changes happen at 02:00 local: 10:00 UTC in spring (PST), 09:00 UTC in autumn (PDT).
        let daylightStart = start * 86_400 + 10 * 3600
        let daylightEnd = end * 86_400 + 9 * 3600
        return seconds >= daylightStart && seconds < daylightEnd ? standard + 3600 : standard
    }

    /// The day number (since 1970-01-01) of the n-th Sunday of a month; -1 for the last one.
    private static func sunday(year: Int, month: Int, occurrence: Int) -> Int {
        if occurrence < 0 {
            let last = GregorianCalendar.daysFromCivil(year: year, month: month, day: GregorianCalendar.daysInMonth(year: year, month: month))
            return last - weekday(last)
        }
        let first = GregorianCalendar.daysFromCivil(year: year, month: month, day: 1)
        return first + (7 - weekday(first)) % 7 + 7 * (occurrence - 1)
    }

    /// 0 for Sunday; 1970-01-01 was a Thursday.
    private static func weekday(_ day: Int) -> Int { ((day + 4) % 7 + 7) % 7 }
}
