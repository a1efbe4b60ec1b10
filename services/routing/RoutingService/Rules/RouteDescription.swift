import Contract
import Foundation
import RoutingContract

/// Turns a found path into what the phone shows: distance, ETA, corner points and steps.
public struct RouteDescription: Sendable {
    let campus: Campus

    public init(campus: Campus) { self.campus = campus }

    /// The route for `path` under `profile`; `approach` metres of straight walking to and from the
    /// graph (snapping) are added to the first and last step and the totals.
    public func describe(
        _ path: RoutePlanner.Path, profile: RouteProfile, crowd: [Float], approach: Double = 0
    ) -> Routing.Route {
        let graph = campus.graph
        let seconds = profile == .accessible ? campus.accessibleSeconds : campus.fastestSeconds
        let speed = Double(profile == .accessible ? campus.cost.accessibleSpeed : campus.cost.walkingSpeed)
        var eta = approach / speed
        var distance = approach
        var steps: [Routing.Step] = []
        var points: [Routing.Point] = [point(path.start)]
        var node = path.start
        var groupKind: SegmentKind?
        var groupWay: Int32 = -1
        var groupLength = 0.0
        var groupStartLevel = graph.level[node]
        var groupIncline: Float = 0
        var lastHeading: Double?

        func flush(endLevel: Int32) {
            guard let kind = groupKind else { return }
            steps.append(
                Routing.Step(
                    instruction: instruction(
                        kind, way: groupWay, length: groupLength, from: groupStartLevel, to: endLevel,
                        incline: groupIncline),
                    kind: kind.name, level: Int(endLevel), distance: (groupLength * 10).rounded() / 10))
        }

        for edge in path.edges {
            let kind = SegmentKind(rawValue: graph.edgeKind[edge]) ?? .footway
            let head = Int(graph.edgeTarget[edge])
            let length = Double(graph.edgeLength[edge])
            let area = campus.nodeArea[node]
            let factor = area >= 0 && Int(area) < crowd.count ? Double(crowd[Int(area)]) : 1
            eta += Double(seconds[edge]) * factor
            distance += length
            let sameGroup =
                kind == groupKind
                && (kind.changesLevel || (graph.level[node] == groupStartLevel && graph.edgeWay[edge] == groupWay))
            if !sameGroup {
                flush(endLevel: graph.level[node])
                groupKind = kind
                groupWay = graph.edgeWay[edge]
                groupLength = 0
                groupStartLevel = graph.level[node]
                groupIncline = 0
            }
            groupLength += length
            groupIncline = max(groupIncline, graph.edgeIncline[edge])
            let heading = atan2(graph.y[head] - graph.y[node], graph.x[head] - graph.x[node])
            let turned = lastHeading.map { abs(remainder($0 - heading, 2 * .pi)) > 0.17 } ?? false
            if turned || !sameGroup || kind.changesLevel {
                if points.last.map({ $0 != point(node) }) ?? true { points.append(point(node)) }
            }
            lastHeading = heading
            node = head
        }
        flush(endLevel: graph.level[node])
        points.append(point(node))
        if approach > 0, !steps.isEmpty {
            steps[0].distance = ((steps[0].distance + approach / 2) * 10).rounded() / 10
            steps[steps.count - 1].distance = ((steps[steps.count - 1].distance + approach / 2) * 10).rounded() / 10
        }
        return Routing.Route(
            profile: profile.rawValue, distance: (distance * 10).rounded() / 10, eta: eta.rounded(), path: points,
            steps: steps)
    }

    func point(_ node: Int) -> Routing.Point {
        let (lat, lon) = campus.graph.coordinate(of: node)
        return Routing.Point(
            lat: (lat * 1e7).rounded() / 1e7, lon: (lon * 1e7).rounded() / 1e7, level: Int(campus.graph.level[node]))
    }

    func instruction(
        _ kind: SegmentKind, way: Int32, length: Double, from: Int32, to: Int32, incline: Float
    ) -> String {
        let info = way >= 0 && Int(way) < campus.graph.ways.count ? campus.graph.ways[Int(way)] : nil
        let metres = "\(Int(length.rounded())) m"
        switch kind {
        case .elevator:
            return "Take the elevator to level \(to)"
        case .stairs:
            return "Take the stairs \(to > from ? "up" : "down") to level \(to)"
        case .door:
            return info?.building.map { "Go through the door of \($0)" } ?? "Go through the door"
        case .ramp:
            return "Follow the ramp (\(Int(incline.rounded())) %) for \(metres)"
        case .corridor:
            let building = info?.building.map { " of \($0)" } ?? ""
            return "Follow the corridor\(building) for \(metres) on level \(to)"
        case .footway:
            return info?.name.map { "Walk \(metres) along \($0)" } ?? "Walk \(metres) outside"
        }
    }
}
