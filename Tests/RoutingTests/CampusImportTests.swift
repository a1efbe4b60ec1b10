import Foundation
import RoutingService
import Testing

/// The OSM import: the sample campus has the size and features NavUP needs (buildings of several
/// floors, stairs, elevators, ramps, venues, access points), and the tag rules.
@Suite("routing: OSM import")
struct CampusImportTests {
    @Test(
        "the sample campus: ≥ 10,000 nodes, ≥ 5 buildings of ≥ 3 floors, stairs, elevators, ramps, ≥ 20 venues and APs")
    func sample() {
        let graph = SampleCampus.map.graph
        #expect(graph.nodeCount >= 10_000)
        #expect(SampleCampus.map.venues.count >= 20)
        #expect(SampleCampus.map.accessPoints.count >= 20)
        var floors: [String: Set<Int32>] = [:]
        for edge in 0..<graph.edgeCount {
            guard let building = graph.ways[Int(graph.edgeWay[edge])].building else { continue }
            floors[building, default: []].insert(graph.level[Int(graph.edgeTarget[edge])])
        }
        #expect(floors.filter { $0.value.count >= 3 }.count >= 5, "\(floors)")
        let kinds = Set(graph.edgeKind.compactMap(SegmentKind.init(rawValue:)))
        #expect(kinds == Set(SegmentKind.allCases), "every kind of segment occurs")
        #expect(graph.edgeIncline.contains { $0 > 8 }, "a ramp too steep for the accessible profile")
        #expect(graph.edgeFlags.contains { SegmentFlags(rawValue: $0).contains(.narrowDoor) })
    }

    @Test("levels, inclines and malformed input")
    func tags() throws {
        #expect(GraphBuilder.levels("2") == [2])
        #expect(GraphBuilder.levels("0;1") == [0, 1])
        #expect(GraphBuilder.levels("0-3") == [0, 1, 2, 3])
        #expect(GraphBuilder.levels("-1") == [-1])
        #expect(GraphBuilder.inclinePercent("12%") == 12)
        #expect(GraphBuilder.inclinePercent("-6%") == 6)
        #expect(GraphBuilder.inclinePercent("up") == nil)
        #expect(throws: MapError.self) { try CampusMap.load(osm: Data("<html>".utf8)) }
        #expect(throws: MapError.self) { try CampusMap.load(osm: Data("<osm version='0.6'></osm>".utf8)) }
    }

    @Test("an elevator way through one node per floor connects the floors")
    func elevatorLevels() throws {
        let osm = """
            <osm version='0.6'>
              <node id='1' lat='0' lon='0'/><node id='2' lat='0' lon='0'/><node id='3' lat='0' lon='0'/>
              <way id='10'><nd ref='1'/><nd ref='2'/><nd ref='3'/><tag k='highway' v='elevator'/><tag k='level' v='0;2'/></way>
            </osm>
            """
        let graph = try CampusMap.load(osm: Data(osm.utf8)).graph
        #expect(graph.level.sorted() == [0, 1, 2])
        #expect(graph.edgeLength.allSatisfy { abs($0 - 3.5) < 0.01 }, "the climb is the length")
    }
}
