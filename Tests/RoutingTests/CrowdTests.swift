import Contract
import Foundation
import RoutingContract
import RoutingService
import Testing

/// Live crowds: counts become factors, factors change the fastest route, the swap is atomic.
@Suite("routing: crowds")
struct CrowdTests {
    /// Two ways from west to east of equal length, north and south, an access point on each.
    static let diamond = """
        <osm version='0.6'>
          <node id='1' lat='0' lon='0'/>
          <node id='2' lat='0.0005' lon='0.0005'/>
          <node id='3' lat='-0.0005' lon='0.0005'/>
          <node id='4' lat='0' lon='0.001'/>
          <node id='90' lat='0.0005' lon='0.0005'><tag k='navup:wifi_ap' v='yes'/><tag k='wifi:bssid' v='02:00:00:00:00:01'/><tag k='capacity' v='10'/></node>
          <node id='91' lat='-0.0005' lon='0.0005'><tag k='navup:wifi_ap' v='yes'/><tag k='wifi:bssid' v='02:00:00:00:00:02'/><tag k='capacity' v='10'/></node>
          <way id='10'><nd ref='1'/><nd ref='2'/><nd ref='4'/><tag k='highway' v='footway'/><tag k='name' v='North Walk'/></way>
          <way id='11'><nd ref='1'/><nd ref='3'/><nd ref='4'/><tag k='highway' v='footway'/><tag k='name' v='South Walk'/></way>
        </osm>
        """

    @Test("the crowd factor rises with density and is capped; stale counts do not count")
    func model() {
        let model = CrowdModel()
        #expect(model.factor(density: 0.2) == 1)
        #expect(model.factor(density: 1) == 2.5)
        #expect(model.factor(density: 10) == 5)
        let campus = SampleCampus.campus
        let now = Date(timeIntervalSince1970: 1_000_000)
        let bssid = campus.accessPoints[0].bssid
        let fresh = model.factors(
            campus: campus, counts: [bssid: DeviceCount(devices: 1000, reportedAt: now)], now: now)
        #expect(fresh[0] == 5 && fresh[1] == 1)
        let stale = model.factors(
            campus: campus, counts: [bssid: DeviceCount(devices: 1000, reportedAt: now - 600)], now: now)
        #expect(stale[0] == 1)
    }

    @Test("a crowd on the north walk sends the fastest route south, and back when it clears")
    func crowdChangesRoute() throws {
        let map = try CampusMap.load(osm: Data(Self.diamond.utf8))
        let campus = Campus(graph: map.graph, accessPoints: map.accessPoints)
        let state = CampusState()
        state.install(campus)
        let navigator = Navigator(state: state)
        let west = Routing.Point(lat: 0, lon: 0, level: 0)
        let east = Routing.Point(lat: 0, lon: 0.001, level: 0)
        let model = CrowdModel()
        let now = Date()
        func route(north: Int, south: Int) throws -> Routing.Route {
            let counts = [
                "02:00:00:00:00:01": DeviceCount(devices: north, reportedAt: now),
                "02:00:00:00:00:02": DeviceCount(devices: south, reportedAt: now),
            ]
            state.updateCrowd(model.factors(campus: campus, counts: counts, now: now), for: campus)
            return try navigator.route(from: west, to: east, profile: .fastest)
        }
        let northCrowded = try route(north: 30, south: 8)
        #expect(northCrowded.steps.first?.instruction.contains("South Walk") == true, "\(northCrowded.steps)")
        let southCrowded = try route(north: 8, south: 30)
        #expect(southCrowded.steps.first?.instruction.contains("North Walk") == true)
        #expect(southCrowded.eta == northCrowded.eta)
        let clear = try route(north: 0, south: 0)
        #expect(clear.eta < northCrowded.eta)
        let shortest = try navigator.route(from: west, to: east, profile: .shortest)
        #expect(abs(shortest.distance - clear.distance) < 0.5, "shortest ignores crowds for the choice")
    }

    @Test("installing a new campus swaps it whole; crowd updates for the old one are dropped")
    func atomicSwap() throws {
        let state = CampusState()
        let first = try CampusMap.load(osm: Data(Self.diamond.utf8))
        let old = Campus(graph: first.graph, accessPoints: first.accessPoints, mapVersion: 1)
        state.install(old)
        let new = Campus(graph: SampleCampus.map.graph, accessPoints: SampleCampus.map.accessPoints, mapVersion: 2)
        state.install(new)
        state.updateCrowd([5, 5], for: old)
        let snapshot = try #require(state.snapshot)
        #expect(snapshot.campus.mapVersion == 2)
        #expect(snapshot.crowd.count == new.accessPoints.count && snapshot.crowd.allSatisfy { $0 == 1 })
    }

    @Test("off the map and no route are errors that say so")
    func errors() throws {
        let state = CampusState()
        state.install(SampleCampus.campus)
        let navigator = Navigator(state: state)
        let hall = SampleCampus.venue("Student Centre Food Court")
        let gallery = SampleCampus.venue("Old Arts Gallery")
        let from = Routing.Point(lat: hall.latitude, lon: hall.longitude, level: hall.level)
        let far = Routing.Point(lat: hall.latitude + 0.05, lon: hall.longitude, level: 0)
        #expect {
            try navigator.route(from: from, to: far, profile: .fastest)
        } throws: { ($0 as? ServiceError)?.details?["reason"] == "off_map" }
        let upstairs = Routing.Point(lat: gallery.latitude, lon: gallery.longitude, level: gallery.level)
        #expect {
            try navigator.route(from: from, to: upstairs, profile: .accessible)
        } throws: { error in
            guard let error = error as? ServiceError else { return false }
            return error.code == .failedPrecondition && error.message.contains("no accessible route")
        }
    }
}
