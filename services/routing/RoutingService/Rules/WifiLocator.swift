import Contract
import Foundation
import RoutingContract

/// Position from a Wi-Fi scan: a weighted centroid of the strongest known access points, each
/// weighted by 1/d² with d from the log-distance path-loss model. Pure, no I/O.
public struct WifiLocator: Sendable {
    /// RSSI at 1 m, dBm.
    public var referencePower: Double = -40
    /// Path-loss exponent indoors.
    public var pathLossExponent: Double = 3
    /// How many of the strongest known access points count.
    public var strongest = 4
    /// Readings weaker than this are noise, dBm.
    public var floor: Double = -95

    public init() {}

    /// Metres from an access point heard at `rssi`.
    public func distance(rssi: Double) -> Double {
        pow(10, (referencePower - rssi) / (10 * pathLossExponent))
    }

    /// The estimate, or nil when no registered access point is in the scan.
    public func locate(scan: [Routing.ScanEntry], accessPoints: [String: AccessPoint]) -> Routing.Locate.Reply? {
        locate(scan: scan) { accessPoints[$0] }
    }

    /// The estimate, or nil when no registered access point is in the scan; `accessPoint` finds
    /// a registered access point by its lower-case BSSID (so callers can look up an index they
    /// keep rather than build a dictionary per scan).
    public func locate(
        scan: [Routing.ScanEntry], accessPoint: (String) -> AccessPoint?
    ) -> Routing.Locate.Reply? {
        var heard: [(point: AccessPoint, rssi: Double)] = []
        var seen = Set<String>()
        for entry in scan where entry.rssi >= floor && entry.rssi < 0 {
            let bssid = entry.bssid.lowercased()
            guard let point = accessPoint(bssid), seen.insert(bssid).inserted else { continue }
            heard.append((point, entry.rssi))
        }
        guard !heard.isEmpty else { return nil }
        heard.sort { $0.rssi > $1.rssi }
        let used = Array(heard.prefix(strongest))
        var levelWeight: [Int: Double] = [:]
        for (point, rssi) in used { levelWeight[point.level, default: 0] += weight(rssi) }
        let level = levelWeight.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }!.key
        let sameLevel = used.filter { $0.point.level == level }
        var total = 0.0
        var lat = 0.0
        var lon = 0.0
        var spread = 0.0
        for (point, rssi) in sameLevel {
            let w = weight(rssi)
            total += w
            lat += point.latitude * w
            lon += point.longitude * w
            spread += distance(rssi: rssi) * w
        }
        let accuracy = min(100, max(3, spread / total))
        return Routing.Locate.Reply(
            lat: lat / total, lon: lon / total, level: level, accuracy: (accuracy * 10).rounded() / 10,
            source: "wifi", accessPointsUsed: sameLevel.count)
    }

    func weight(_ rssi: Double) -> Double {
        let d = distance(rssi: rssi)
        return 1 / (d * d)
    }
}
