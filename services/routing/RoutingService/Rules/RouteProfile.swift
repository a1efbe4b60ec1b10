/// How a route is weighed.
public enum RouteProfile: String, Sendable, CaseIterable, Codable {
    /// Least walking time, each segment's time multiplied by its live crowd factor.
    case fastest
    /// No stairs, no ramp steeper than the maximum incline, no narrow doors; elevators and
    /// ramps instead. Slower speed; crowds count as for `fastest`.
    case accessible
    /// Least distance; crowds are ignored for the choice but slow the ETA.
    case shortest
}

/// Speeds and penalties that turn a segment into seconds: the pure rules of route cost.
public struct RouteCost: Sendable, Hashable {
    /// Walking speed on the flat, m/s.
    public var walkingSpeed: Float = 1.4
    /// Speed of the accessible profile (wheelchair, crutches), m/s.
    public var accessibleSpeed: Float = 0.9
    /// Speed along stairs (measured along the slope), m/s.
    public var stairsSpeed: Float = 0.5
    /// Time an elevator adds per floor of a ride besides travel (the wait for it, spread over
    /// an average ride, and the stop), s.
    public var elevatorWait: Float = 10
    /// Elevator travel speed, m/s.
    public var elevatorSpeed: Float = 1.0
    /// Extra time to pass a door, s.
    public var doorPenalty: Float = 2
    /// Steepest ramp the accessible profile takes, percent.
    public var maximumIncline: Float = 8

    public init() {}

    /// Seconds to cross a segment without crowds, or `.infinity` when `profile` may not use it.
    public func seconds(
        length: Float, kind: SegmentKind, flags: SegmentFlags, incline: Float, profile: RouteProfile
    ) -> Float {
        let accessible = profile == .accessible
        if accessible {
            if kind == .stairs || flags.contains(.narrowDoor) || flags.contains(.noWheelchair) { return .infinity }
            if incline > maximumIncline { return .infinity }
        }
        let speed = accessible ? accessibleSpeed : walkingSpeed
        switch kind {
        case .stairs: return length / stairsSpeed
        case .elevator: return elevatorWait + length / elevatorSpeed
        case .door: return length / speed + doorPenalty
        case .ramp: return length / (speed * max(0.5, 1 - incline / 40))
        case .footway, .corridor: return length / speed
        }
    }

    /// The fastest speed any allowed segment can be crossed at under `profile`, for the A*
    /// heuristic (straight-line metres / this never overestimates).
    public func topSpeed(_ profile: RouteProfile) -> Float {
        switch profile {
        case .fastest: walkingSpeed
        case .accessible: max(accessibleSpeed, elevatorSpeed)
        case .shortest: 1
        }
    }
}
