/// What a walker does on one segment of the campus graph; the `kind` of a route step.
public enum SegmentKind: UInt8, Sendable, CaseIterable {
    case footway = 0
    case corridor = 1
    case stairs = 2
    case elevator = 3
    case ramp = 4
    case door = 5

    /// The wire name (`footway`, `corridor`, `stairs`, `elevator`, `ramp`, `door`).
    public var name: String {
        switch self {
        case .footway: "footway"
        case .corridor: "corridor"
        case .stairs: "stairs"
        case .elevator: "elevator"
        case .ramp: "ramp"
        case .door: "door"
        }
    }

    /// Whether the segment changes level by itself.
    public var changesLevel: Bool { self == .stairs || self == .elevator }
}

/// Facts about a segment that decide whether a profile may use it.
public struct SegmentFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// A door narrower than the accessible minimum (or tagged `wheelchair=no`).
    public static let narrowDoor = SegmentFlags(rawValue: 1 << 0)
    /// The way is tagged `wheelchair=no`.
    public static let noWheelchair = SegmentFlags(rawValue: 1 << 1)
}
