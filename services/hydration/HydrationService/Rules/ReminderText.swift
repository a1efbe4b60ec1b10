import HydrationContract

/// What a reminder says: how much is still to drink today, in the user's unit, and in the
/// app's sizes ("16 oz to go: a bottle, or two glasses"). Nothing when the goal is met.
public enum ReminderText {
    /// The sentence for `remaining` femtolitres, or nil when nothing remains.
    public static func text(remaining: Int64, unit: Hydration.Unit) -> String? {
        guard remaining > 0 else { return nil }
        let amount: String
        switch unit {
        case .ml:
            amount = "\(divideUp(remaining, DrinkVolume.femtolitresPerMillilitre)) ml"
        case .oz:
            amount = "\(divideUp(remaining, 100 * DrinkVolume.femtolitresPerCentiOunce)) oz"
        }
        return "\(amount) to go: \(suggestion(remaining))"
    }

    /// The remaining volume in drinks, glasses and bottles, each rounded up.
    static func suggestion(_ remaining: Int64) -> String {
        let glass = 800 * DrinkVolume.femtolitresPerCentiOunce
        if remaining <= glass / 2 { return "a drink" }
        if remaining <= glass { return "a glass" }
        let glasses = divideUp(remaining, glass)
        let bottles = divideUp(remaining, 2 * glass)
        let bottleText = bottles == 1 ? "a bottle" : "\(words(bottles)) bottles"
        return "\(bottleText), or \(words(glasses)) glasses"
    }

    static func divideUp(_ value: Int64, _ unit: Int64) -> Int64 { (value + unit - 1) / unit }

    static func words(_ count: Int64) -> String {
        let names = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
        return count < names.count ? names[Int(count)] : "\(count)"
    }
}
