import Contract
import Foundation
import RoutingContract
import ServiceKit
import Store

/// Crowds: the Wi-Fi controllers' device counts in, and the campus's occupancy out.
public struct OccupancyHandler: Sendable {
    let maps: MapStore
    let loader: CampusLoader
    let crowdModel: CrowdModel
    let clock: any WallClock

    public init(maps: MapStore, loader: CampusLoader, crowdModel: CrowdModel, clock: any WallClock) {
        self.maps = maps
        self.loader = loader
        self.crowdModel = crowdModel
        self.clock = clock
    }

    /// `report_occupancy` (Wi-Fi controller): counts of known access points are stored and the
    /// crowd factors recomputed; unknown BSSIDs are named back.
    func report(_ request: Routing.ReportOccupancy.Request, _ context: OperationContext) async throws
        -> Routing.ReportOccupancy.Reply
    {
        _ = try context.requireRole(.wifiController)
        guard request.counts.count <= 10_000 else {
            throw ServiceError.invalidArgument("at most 10,000 counts per report", field: "counts")
        }
        let known = Set(try await maps.accessPoints().map(\.bssid))
        var accepted: [(bssid: String, devices: Int)] = []
        var unknown: [String] = []
        for count in request.counts {
            guard count.devices >= 0, Int32(exactly: count.devices) != nil else {
                throw ServiceError.invalidArgument("devices is 0 to 2147483647", field: "counts")
            }
            let bssid = count.bssid.lowercased()
            if known.contains(bssid) { accepted.append((bssid, count.devices)) } else { unknown.append(count.bssid) }
        }
        try await maps.recordCounts(accepted, at: clock.now())
        try await loader.updateCrowd()
        return .init(accepted: accepted.count, unknown: unknown)
    }

    /// `get_occupancy`: each access point's area with its fresh count, density and crowd factor.
    func occupancy(_ request: Empty, _ context: OperationContext) async throws -> Routing.GetOccupancy.Reply {
        let counts = try await maps.counts()
        let now = clock.now()
        var people = 0
        var areas: [Routing.AreaOccupancy] = []
        for point in try await maps.accessPoints() {
            var devices = 0
            if let count = counts[point.bssid], now.timeIntervalSince(count.reportedAt) <= crowdModel.staleAfter {
                devices = count.devices
            }
            people += devices
            let density = crowdModel.density(devices: devices, capacity: point.capacity)
            areas.append(
                .init(
                    bssid: point.bssid, name: point.name, level: point.level, devices: devices,
                    capacity: point.capacity, density: (density * 100).rounded() / 100,
                    crowdFactor: (crowdModel.factor(density: density) * 100).rounded() / 100))
        }
        return .init(peopleOnCampus: people, areas: areas)
    }
}
