import Contract
import HydrationContract

/// A volume kept exactly as it was logged: whole millilitres, or hundredths of a US fluid ounce.
/// Sums and comparisons go through femtolitres, in which both units are whole numbers
/// (1 US fl oz is exactly 29.5735295625 ml), so mixing units never rounds.
public struct DrinkVolume: Sendable, Hashable {
    /// Millilitres, or hundredths of an ounce, as `unit` says.
    public let amount: Int
    public let unit: Hydration.Unit

    /// Femtolitres in one millilitre and in one hundredth of a US fluid ounce.
    public static let femtolitresPerMillilitre: Int64 = 1_000_000_000_000
    public static let femtolitresPerCentiOunce: Int64 = 295_735_295_625
    /// The largest drink: 5 litres.
    public static let maximumFemtolitres: Int64 = 5_000 * femtolitresPerMillilitre

    /// `amount` millilitres or hundredths of an ounce.
    public init(amount: Int, unit: Hydration.Unit) {
        self.amount = amount
        self.unit = unit
    }

    /// Whole millilitres.
    public static func millilitres(_ ml: Int) -> DrinkVolume { DrinkVolume(amount: ml, unit: .ml) }
    /// Hundredths of a US fluid ounce.
    public static func centiOunces(_ centi: Int) -> DrinkVolume { DrinkVolume(amount: centi, unit: .oz) }

    /// The standard size of a category; nil for `custom`.
    public static func standard(_ category: Hydration.Category) -> DrinkVolume? {
        switch category {
        case .drink: .centiOunces(400)
        case .glass: .centiOunces(800)
        case .bottle: .centiOunces(1_600)
        case .custom: nil
        }
    }

    /// The exact size in femtolitres.
    public var femtolitres: Int64 {
        Int64(amount) * (unit == .ml ? Self.femtolitresPerMillilitre : Self.femtolitresPerCentiOunce)
    }

    /// A client's volume: positive, at most 5 litres, ml whole and oz to two decimals;
    /// otherwise `invalid_argument` naming `field`.
    public static func parse(_ input: Hydration.VolumeInput, field: String) throws(ServiceError) -> DrinkVolume {
        guard input.value.isFinite, input.value > 0 else {
            throw ServiceError.invalidArgument("\(field) must be more than 0", field: field)
        }
        guard input.value <= 200_000 else {
            throw ServiceError.invalidArgument("\(field) must be at most 5 litres", field: field)
        }
        let scaled = input.unit == .ml ? input.value : input.value * 100
        let whole = scaled.rounded()
        guard abs(scaled - whole) < 1e-6 else {
            let precision = input.unit == .ml ? "whole millilitres" : "ounces to two decimals"
            throw ServiceError.invalidArgument("\(field) must be in \(precision)", field: field)
        }
        let volume = DrinkVolume(amount: Int(whole), unit: input.unit)
        guard volume.amount > 0 else {
            throw ServiceError.invalidArgument("\(field) must be more than 0", field: field)
        }
        guard volume.femtolitres <= maximumFemtolitres else {
            throw ServiceError.invalidArgument("\(field) must be at most 5 litres", field: field)
        }
        return volume
    }

    /// As a client writes it.
    public var input: Hydration.VolumeInput {
        Hydration.VolumeInput(value: unit == .ml ? Double(amount) : Double(amount) / 100, unit: unit)
    }

    /// In both units.
    public var both: Hydration.Volume { Self.both(femtolitres: femtolitres) }

    /// `femtolitres` in both units: millilitres rounded to whole ones, ounces to two decimals
    /// (halves away from zero).
    public static func both(femtolitres: Int64) -> Hydration.Volume {
        Hydration.Volume(
            ml: Int(rounded(femtolitres, per: femtolitresPerMillilitre)),
            oz: Double(rounded(femtolitres, per: femtolitresPerCentiOunce)) / 100)
    }

    /// `value / unit`, rounded half away from zero.
    static func rounded(_ value: Int64, per unit: Int64) -> Int64 {
        value >= 0 ? (value + unit / 2) / unit : -((-value + unit / 2) / unit)
    }
}
