import Foundation

/// How connected-device counts become crowd factors: pure rules, no I/O.
public struct CrowdModel: Sendable, Hashable {
    /// Density (devices / capacity) up to which walking is not slowed.
    public var freeFlowDensity: Double = 0.5
    /// Extra factor per unit of density above free flow.
    public var slowdownPerDensity: Double = 3
    /// The largest factor (a packed hall is slow, not impassable).
    public var maximumFactor: Double = 5
    /// A report older than this no longer counts (the controller reports every 30 s).
    public var staleAfter: TimeInterval = 120

    public init() {}

    /// Devices per capacity.
    public func density(devices: Int, capacity: Int) -> Double {
        Double(max(0, devices)) / Double(max(1, capacity))
    }

    /// The factor walking times are multiplied by in an area of that density (≥ 1).
    public func factor(density: Double) -> Double {
        min(maximumFactor, 1 + max(0, density - freeFlowDensity) * slowdownPerDensity)
    }

    /// Crowd factor per access point of `campus` (index order), from the latest counts; stale or
    /// missing counts give 1.
    public func factors(campus: Campus, counts: [String: DeviceCount], now: Date) -> [Float] {
        campus.accessPoints.map { point in
            guard let count = counts[point.bssid], now.timeIntervalSince(count.reportedAt) <= staleAfter else {
                return 1
            }
            return Float(factor(density: density(devices: count.devices, capacity: point.capacity)))
        }
    }
}

/// Devices connected to one access point, as the Wi-Fi controller last reported.
public struct DeviceCount: Sendable, Hashable {
    public var devices: Int
    public var reportedAt: Date
    public init(devices: Int, reportedAt: Date) {
        self.devices = devices
        self.reportedAt = reportedAt
    }
}
