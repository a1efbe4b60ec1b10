/// Dates of the proleptic Gregorian calendar and day numbers (days since 1970-01-01), both
/// ways, by arithmetic: no calendar object, no time-zone table, no lock.
///
/// The method is Howard Hinnant's (`days_from_civil`, `civil_from_days`): years are counted from
/// March, so that the leap day is the last day of its year, and the calendar repeats every 400
/// years (146,097 days), so a date is an era and a day within it.
public enum CivilDate {
    /// Days since 1970-01-01 of a date (month 1-12, day 1-31); negative before 1970.
    public static func dayNumber(year: Int, month: Int, day: Int) -> Int {
        let marchYear = month <= 2 ? year - 1 : year
        let era = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
        let yearOfEra = marchYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of day number `days` (since 1970-01-01).
    public static func date(ofDay days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
