import Contract
import Foundation
import Logging
import ServiceKit
import ServiceLifecycle
import Store

/// Keeps this replica's ``CampusState`` in step with the database: installs the newest stored
/// map at start (seeding it from `CAMPUS_OSM_PATH` on an empty database), then every
/// `CAMPUS_REFRESH_MS` picks up a newer map (an admin re-import on any replica), access-point
/// edits, the latest crowd counts and venue edits (dropping the ``VenueCache``). Each change is built aside and swapped in atomically.
public final class CampusLoader: Service, Sendable {
    let store: MapStore
    let state: CampusState
    let crowdModel: CrowdModel
    let cost: RouteCost
    let clock: any WallClock
    let logger: Logger
    let refreshInterval: Duration
    /// Dropped when the stored venues change (see ``VenueCache``).
    let venues: VenueCache?
    private let revision = LockedValue<String>("")

    public init(
        store: MapStore, state: CampusState, crowdModel: CrowdModel, cost: RouteCost, clock: any WallClock,
        logger: Logger, refreshInterval: Duration, venues: VenueCache? = nil
    ) {
        self.venues = venues
        self.store = store
        self.state = state
        self.crowdModel = crowdModel
        self.cost = cost
        self.clock = clock
        self.logger = logger
        self.refreshInterval = refreshInterval
    }

    /// Installs the newest stored map, importing `seed` first when none is stored.
    public func start(seed: @escaping @Sendable () throws -> Data) async throws {
        if try await store.latestVersion() == nil {
            let data = try await onOwnThread(seed)
            let map = try await onOwnThread { try CampusMap.load(osm: data) }
            let version = try await store.saveImport(
                osm: String(decoding: data, as: UTF8.self), map: map, importedBy: nil, replace: false,
                now: clock.now())
            logger.info(
                "seeded the campus map", metadata: ["version": "\(version)", "nodes": "\(map.graph.nodeCount)"])
        }
        try await refresh()
    }

    /// A map just imported on this replica: install it at once.
    public func installImported(_ map: CampusMap, version: Int64) async throws {
        let points = try await store.accessPoints()
        let cost = cost
        let campus = try await onOwnThread {
            Campus(graph: map.graph, accessPoints: points, cost: cost, mapVersion: version)
        }
        revision.set(try await store.accessPointRevision())
        state.install(
            campus, crowd: crowdModel.factors(campus: campus, counts: try await store.counts(), now: clock.now()))
    }

    /// Catches up with the database: map version, access points, crowd factors.
    public func refresh() async throws {
        var campus = state.snapshot?.campus
        if let latest = try await store.latestMap(), latest.version != campus?.mapVersion {
            let map = try await onOwnThread { try CampusMap.load(osm: Data(latest.osm.utf8)) }
            let points = try await store.accessPoints()
            let cost = cost
            campus = try await onOwnThread {
                Campus(graph: map.graph, accessPoints: points, cost: cost, mapVersion: latest.version)
            }
            revision.set(try await store.accessPointRevision())
            logger.info(
                "installed campus map",
                metadata: [
                    "version": "\(latest.version)", "nodes": "\(map.graph.nodeCount)",
                    "edges": "\(map.graph.edgeCount)", "accessPoints": "\(points.count)",
                ])
            state.install(campus!)
        } else if let current = campus {
            let now = try await store.accessPointRevision()
            if now != revision.get() {
                let points = try await store.accessPoints()
                campus = current.replacingAccessPoints(points)
                revision.set(now)
                state.install(campus!)
            }
        }
        try await updateCrowd()
        try await venues?.catchUp()
    }

    /// Recomputes the crowd factors from the stored counts.
    public func updateCrowd() async throws {
        guard let campus = state.snapshot?.campus else { return }
        let factors = crowdModel.factors(campus: campus, counts: try await store.counts(), now: clock.now())
        state.updateCrowd(factors, for: campus)
    }

    public func run() async throws {
        try await cancelWhenGracefulShutdown { try await self.loop() }
    }

    private func loop() async throws {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: refreshInterval)
            } catch {
                return
            }
            do {
                try await refresh()
            } catch {
                logger.warning("campus refresh failed", metadata: ["error": "\(SafeErrorDescription.of(error))"])
            }
        }
    }
}
