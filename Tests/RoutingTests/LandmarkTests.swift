import Contract
import Foundation
import RoutingService
import ServiceKit
import Testing

/// ALT landmarks sharpen the heuristic without changing any answer.
@Suite("routing: A* with landmarks")
struct LandmarkTests {
    @Test("on a jittered grid, landmarks give the same costs as plain A* and settle fewer nodes")
    func grid() {
        var gridRandom = SeededRandom(seed: 7)
        let plain = Campus.syntheticGrid(side: 70, random: &gridRandom, landmarkCount: 0)
        let sharp = plain.withLandmarks(count: 16, profiles: [.fastest])
        let planner = RoutePlanner()
        var random = SystemRandomNumberGenerator()
        var settled = (plain: 0, sharp: 0)
        for _ in 0..<40 {
            let from = Int.random(in: 0..<plain.graph.nodeCount, using: &random)
            let to = Int.random(in: 0..<plain.graph.nodeCount, using: &random)
            let reference = planner.route(on: plain, crowd: [], from: from, to: to, profile: .fastest)
            let fast = planner.route(on: sharp, crowd: [], from: from, to: to, profile: .fastest)
            #expect(abs((reference?.cost ?? 0) - (fast?.cost ?? -1)) <= 0.001 * max(1, reference?.cost ?? 0))
            settled.plain += reference?.settled ?? 0
            settled.sharp += fast?.settled ?? 0
        }
        #expect(settled.sharp * 2 < settled.plain, "settled: \(settled)")
    }

    @Test("on the sample campus, every profile under crowds costs the same with and without landmarks")
    func campus() {
        let sharp = SampleCampus.campus
        let plain = Campus(graph: SampleCampus.map.graph, accessPoints: SampleCampus.map.accessPoints, landmarkCount: 0)
        var crowd = [Float](repeating: 1, count: sharp.accessPoints.count)
        for index in crowd.indices where index % 4 == 1 { crowd[index] = 3 }
        let planner = RoutePlanner()
        var random = SystemRandomNumberGenerator()
        for profile in RouteProfile.allCases {
            for _ in 0..<150 {
                let from = Int.random(in: 0..<plain.graph.nodeCount, using: &random)
                let to = Int.random(in: 0..<plain.graph.nodeCount, using: &random)
                let reference = planner.route(on: plain, crowd: crowd, from: from, to: to, profile: profile)
                let fast = planner.route(on: sharp, crowd: crowd, from: from, to: to, profile: profile)
                #expect((reference == nil) == (fast == nil), "\(profile) \(from)→\(to)")
                if let reference, let fast {
                    #expect(abs(reference.cost - fast.cost) <= 0.001 * max(1, reference.cost), "\(profile)")
                }
            }
        }
    }
}
