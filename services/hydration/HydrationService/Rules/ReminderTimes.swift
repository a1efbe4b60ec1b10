/// When a day's reminders go: `count` of them spread evenly over the waking hours, none at the
/// moment of waking nor at bedtime (the first is one interval after `wake`). Waking hours may
/// span midnight (`sleep` before `wake`).
public enum ReminderTimes {
    /// The most reminders a day.
    public static let maximumPerDay = 24

    /// The times, in the order they come after waking.
    public static func spread(count: Int, wake: ClockTime, sleep: ClockTime) -> [ClockTime] {
        guard count > 0 else { return [] }
        var span = sleep.minutes - wake.minutes
        if span <= 0 { span += 1_440 }
        var times: [ClockTime] = []
        for index in 1...count {
            let offset = span * index / (count + 1)
            if let time = ClockTime(minutes: (wake.minutes + offset) % 1_440), times.last != time {
                times.append(time)
            }
        }
        return times
    }
}
