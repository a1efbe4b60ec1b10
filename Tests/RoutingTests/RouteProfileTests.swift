import Contract
import Foundation
import RoutingService
import Testing

/// Every profile on the sample campus.
@Suite("routing: profiles on the sample campus")
struct RouteProfileTests {
    let campus = SampleCampus.campus
    let planner = RoutePlanner()
    var neutral: [Float] { [Float](repeating: 1, count: campus.accessPoints.count) }

    func kinds(_ path: RoutePlanner.Path) -> [SegmentKind] {
        path.edges.map { SegmentKind(rawValue: campus.graph.edgeKind[$0])! }
    }

    @Test("fastest from the Engineering ground floor to IT level 3 changes floors and says so")
    func fastestAcrossBuildings() throws {
        let path = try #require(
            planner.route(
                on: campus, crowd: neutral, from: SampleCampus.node("Engineering Lecture Hall 1"),
                to: SampleCampus.node("IT 4-1"), profile: .fastest))
        let route = RouteDescription(campus: campus).describe(path, profile: .fastest, crowd: neutral)
        #expect(route.steps.contains { $0.kind == "footway" })
        #expect(route.steps.contains { $0.kind == "door" })
        #expect(route.steps.last?.level == 3)
        #expect(route.steps.contains { $0.instruction.contains("to level 3") }, "\(route.steps)")
        #expect(route.distance > 100 && route.eta > route.distance / 1.4)
        #expect(route.path.first?.level == 0 && route.path.last?.level == 3)
    }

    @Test("accessible routes never contain stairs, steep ramps or narrow doors (1,000 random pairs)")
    func accessibleAvoidsBarriers() {
        var random = SystemRandomNumberGenerator()
        var found = 0
        for _ in 0..<1000 {
            let from = Int.random(in: 0..<campus.graph.nodeCount, using: &random)
            let to = Int.random(in: 0..<campus.graph.nodeCount, using: &random)
            guard let path = planner.route(on: campus, crowd: neutral, from: from, to: to, profile: .accessible)
            else { continue }
            found += 1
            for edge in path.edges {
                #expect(SegmentKind(rawValue: campus.graph.edgeKind[edge]) != .stairs)
                #expect(campus.graph.edgeIncline[edge] <= 8)
                #expect(!SegmentFlags(rawValue: campus.graph.edgeFlags[edge]).contains(.narrowDoor))
            }
        }
        #expect(found > 500, "most of the campus is reachable without stairs")
    }

    @Test("accessible takes the elevator where fastest may take the stairs; both reach level 4")
    func accessibleTakesElevator() throws {
        let from = SampleCampus.node("Engineering Lecture Hall 1")
        let to = SampleCampus.node("Engineering Lecture Hall 3")
        let accessible = try #require(
            planner.route(on: campus, crowd: neutral, from: from, to: to, profile: .accessible))
        #expect(kinds(accessible).contains(.elevator))
        #expect(!kinds(accessible).contains(.stairs))
        let route = RouteDescription(campus: campus).describe(accessible, profile: .accessible, crowd: neutral)
        #expect(route.steps.contains { $0.kind == "elevator" && $0.instruction == "Take the elevator to level 4" })
    }

    @Test("Old Arts has no elevator: no accessible route upstairs, a fastest one by the stairs")
    func noAccessibleRoute() throws {
        let from = SampleCampus.node("Student Centre Food Court")
        let to = SampleCampus.node("Old Arts Gallery")
        #expect(planner.route(on: campus, crowd: neutral, from: from, to: to, profile: .accessible) == nil)
        let fastest = try #require(planner.route(on: campus, crowd: neutral, from: from, to: to, profile: .fastest))
        #expect(kinds(fastest).contains(.stairs))
    }

    @Test("the IT main door is too narrow: accessible enters by the east door")
    func narrowDoor() throws {
        let from = SampleCampus.node("EBIT Student House")
        let to = SampleCampus.node("Engineering Coffee Corner")
        let fastest = try #require(planner.route(on: campus, crowd: neutral, from: from, to: to, profile: .fastest))
        let accessible = try #require(
            planner.route(on: campus, crowd: neutral, from: from, to: to, profile: .accessible))
        let narrow = { (path: RoutePlanner.Path) in
            path.edges.contains { SegmentFlags(rawValue: campus.graph.edgeFlags[$0]).contains(.narrowDoor) }
        }
        #expect(narrow(fastest))
        #expect(!narrow(accessible))
    }

    @Test("shortest is never longer than fastest; fastest is never slower than shortest")
    func shortestVersusFastest() throws {
        var random = SystemRandomNumberGenerator()
        let describe = RouteDescription(campus: campus)
        for _ in 0..<200 {
            let from = Int.random(in: 0..<campus.graph.nodeCount, using: &random)
            let to = Int.random(in: 0..<campus.graph.nodeCount, using: &random)
            guard let fastest = planner.route(on: campus, crowd: neutral, from: from, to: to, profile: .fastest),
                let shortest = planner.route(on: campus, crowd: neutral, from: from, to: to, profile: .shortest)
            else { continue }
            let f = describe.describe(fastest, profile: .fastest, crowd: neutral)
            let s = describe.describe(shortest, profile: .shortest, crowd: neutral)
            #expect(s.distance <= f.distance + 0.5)
            #expect(f.eta <= s.eta + 1)
        }
    }

    @Test("A* finds the same cost as a search without heuristic would (Dijkstra check on 20 pairs)")
    func optimal() throws {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let from = Int.random(in: 0..<campus.graph.nodeCount, using: &random)
            let to = Int.random(in: 0..<campus.graph.nodeCount, using: &random)
            let path = planner.route(on: campus, crowd: neutral, from: from, to: to, profile: .shortest)
            let reference = Dijkstra.distance(campus.graph, from: from, to: to)
            #expect(abs((path?.cost ?? .infinity) - reference) < 0.05 || (path == nil && reference == .infinity))
        }
    }
}

/// A plain Dijkstra over edge lengths, to check A*.
enum Dijkstra {
    static func distance(_ graph: CampusGraph, from: Int, to: Int) -> Float {
        var best = [Float](repeating: .infinity, count: graph.nodeCount)
        var done = [Bool](repeating: false, count: graph.nodeCount)
        best[from] = 0
        var frontier: Set<Int> = [from]
        while let node = frontier.min(by: { best[$0] < best[$1] }) {
            frontier.remove(node)
            if node == to { return best[node] }
            done[node] = true
            for edge in Int(graph.edgeStart[node])..<Int(graph.edgeStart[node + 1]) {
                let head = Int(graph.edgeTarget[edge])
                if done[head] { continue }
                let score = best[node] + graph.edgeLength[edge]
                if score < best[head] {
                    best[head] = score
                    frontier.insert(head)
                }
            }
        }
        return .infinity
    }
}
