import Contract

extension ServiceName {
    /// TapWater's drink log, history, sync and daily plan.
    public static let hydration = ServiceName("hydration")
}

/// Operations of the `hydration` service (TapWater): the drink log, history by local day,
/// offline sync across devices and the daily goal plan.
public enum Hydration {
    /// What a drink was, as the app logs it.
    public enum Category: String, Codable, Sendable, CaseIterable {
        /// A small drink, 4 US fl oz.
        case drink
        /// A glass, 8 US fl oz.
        case glass
        /// A bottle, 16 US fl oz.
        case bottle
        /// Any other size; the drink names its volume.
        case custom
    }

    /// The unit a user reads volumes in.
    public enum Unit: String, Codable, Sendable, CaseIterable {
        /// US fluid ounces.
        case oz
        /// Millilitres.
        case ml
    }

    /// A volume as a client writes it: a value in a unit (`oz` to two decimals, `ml` whole).
    public struct VolumeInput: Codable, Sendable, Equatable {
        public var value: Double
        public var unit: Unit
        public init(value: Double, unit: Unit) {
            self.value = value
            self.unit = unit
        }
    }

    /// A volume as every reply gives it: in both units (the one it was logged in is exact).
    public struct Volume: Codable, Sendable, Equatable {
        /// Millilitres, rounded to whole ones.
        public var ml: Int
        /// US fluid ounces, rounded to two decimals.
        public var oz: Double
        public init(ml: Int, oz: Double) {
            self.ml = ml
            self.oz = oz
        }
    }
}
