import Foundation

/// Turns an ``OSMDocument`` into a ``CampusGraph``: picks the walkable ways, gives every node a
/// floor, classifies each segment and measures it.
public struct GraphBuilder: Sendable {
    /// `highway=*` values a pedestrian can use.
    public static let walkable: Set<String> = ["footway", "path", "corridor", "steps", "elevator", "pedestrian"]
    let rules: MapRules

    public init(rules: MapRules = MapRules()) { self.rules = rules }

    /// The floors in an OSM `level` value: `2`, `0;1`, `0-3`, `-1`.
    public static func levels(_ value: String?) -> [Int32] {
        guard let value else { return [] }
        var result: [Int32] = []
        for part in value.split(separator: ";") {
            let text = part.trimmingCharacters(in: .whitespaces)
            if let single = Double(text) {
                result.append(Int32(single.rounded()))
            } else if let dash = text.dropFirst().firstIndex(of: "-"),
                let low = Double(text[..<dash]), let high = Double(text[text.index(after: dash)...]), low <= high
            {
                result.append(contentsOf: Int32(low.rounded())...Int32(high.rounded()))
            }
        }
        return result
    }

    /// Percent of an OSM `incline` (`6%`, `-8%`, `5°`); `up`/`down`/unknown → nil.
    public static func inclinePercent(_ value: String?) -> Float? {
        guard let value = value?.trimmingCharacters(in: .whitespaces) else { return nil }
        if value.hasSuffix("%"), let percent = Float(value.dropLast()) { return abs(percent) }
        if value.hasSuffix("°"), let degrees = Float(value.dropLast()) { return abs(tan(degrees * .pi / 180) * 100) }
        return nil
    }

    /// Metres in an OSM `width` (`0.8`, `0.8 m`, `80 cm`).
    static func metres(_ value: String?) -> Double? {
        guard let value = value?.trimmingCharacters(in: .whitespaces) else { return nil }
        if value.hasSuffix("cm"), let cm = Double(value.dropLast(2).trimmingCharacters(in: .whitespaces)) {
            return cm / 100
        }
        if value.hasSuffix("m"), let m = Double(value.dropLast().trimmingCharacters(in: .whitespaces)) { return m }
        return Double(value)
    }

    /// Builds the graph; `MapError.empty` when nothing is walkable.
    public func build(_ document: OSMDocument) throws -> CampusGraph {
        let ways = document.ways.filter { way in
            way.nodes.count >= 2 && way.tags["highway"].map(Self.walkable.contains) == true
                && way.tags["access"] != "no"
        }
        var nodeIndex: [Int64: Int] = [:]
        for (index, node) in document.nodes.enumerated() { nodeIndex[node.id] = index }
        let nodeLevels = assignLevels(ways: ways, document: document)

        var graphIndex: [Int64: Int32] = [:]
        var osmId: [Int64] = []
        var latitude: [Double] = []
        var longitude: [Double] = []
        var level: [Int32] = []
        for way in ways {
            for ref in way.nodes where graphIndex[ref] == nil {
                guard let source = nodeIndex[ref] else { continue }
                graphIndex[ref] = Int32(osmId.count)
                osmId.append(ref)
                latitude.append(document.nodes[source].latitude)
                longitude.append(document.nodes[source].longitude)
                level.append(nodeLevels[ref] ?? 0)
            }
        }
        guard !osmId.isEmpty else { throw MapError.empty }
        let projection = LocalProjection(
            latitude: (latitude.min()! + latitude.max()!) / 2, longitude: (longitude.min()! + longitude.max()!) / 2)
        var x = [Double](repeating: 0, count: osmId.count)
        var y = [Double](repeating: 0, count: osmId.count)
        for index in osmId.indices {
            (x[index], y[index]) = projection.project(latitude: latitude[index], longitude: longitude[index])
        }

        var edges: [GraphEdge] = []
        var infos: [CampusGraph.WayInfo] = []
        for way in ways {
            let wayIndex = Int32(infos.count)
            infos.append(.init(name: way.tags["name"], building: way.tags["building"]))
            let refs = way.nodes.compactMap { ref in graphIndex[ref].map { (ref, $0) } }
            let oneway = way.tags["oneway"] == "yes" && way.tags["highway"] != "steps"
            for ((fromRef, from), (toRef, to)) in zip(refs, refs.dropFirst()) {
                let doorTags = [fromRef, toRef].compactMap { ref -> [String: String]? in
                    guard let source = nodeIndex[ref], document.nodes[source].tags["door"] != nil else { return nil }
                    return document.nodes[source].tags
                }
                let (kind, flags, incline) = classify(way: way.tags, doors: doorTags)
                let dx = x[Int(to)] - x[Int(from)]
                let dy = y[Int(to)] - y[Int(from)]
                let dz = Double(level[Int(to)] - level[Int(from)]) * rules.floorHeight
                let length = Float((dx * dx + dy * dy + dz * dz).squareRoot())
                let edge = GraphEdge(
                    from: from, to: to, length: length, kind: kind, flags: flags, incline: incline, way: wayIndex)
                edges.append(edge)
                if !oneway {
                    var back = edge
                    back.from = to
                    back.to = from
                    edges.append(back)
                }
            }
        }
        return CampusGraph(
            projection: projection, osmId: osmId, x: x, y: y, level: level, edges: edges, ways: infos)
    }

    func classify(way tags: [String: String], doors: [[String: String]]) -> (SegmentKind, SegmentFlags, Float) {
        var flags: SegmentFlags = []
        if tags["wheelchair"] == "no" { flags.insert(.noWheelchair) }
        let incline = Self.inclinePercent(tags["incline"]) ?? 0
        let doorWays = tags["door"] != nil || tags["indoor"] == "door"
        let doorWidths = doors.compactMap { Self.metres($0["width"]) } + [Self.metres(tags["width"])].compactMap { $0 }
        let narrow =
            doors.contains { $0["wheelchair"] == "no" }
            || ((doorWays || !doors.isEmpty) && doorWidths.contains { $0 < rules.minimumDoorWidth })
        if narrow { flags.insert(.narrowDoor) }
        let kind: SegmentKind
        switch tags["highway"] {
        case "elevator": kind = .elevator
        case "steps": kind = .stairs
        default:
            if doorWays || !doors.isEmpty {
                kind = .door
            } else if tags["ramp"] == "yes" || incline >= 3 {
                kind = .ramp
            } else if tags["highway"] == "corridor" || (tags["indoor"].map { $0 != "no" } ?? false) {
                kind = .corridor
            } else {
                kind = .footway
            }
        }
        return (kind, flags, incline)
    }

    /// Floors of the nodes of walkable ways: a node's own `level` tag, else the level of a
    /// single-floor way through it, else interpolated along a multi-floor way (stairs, elevators).
    func assignLevels(ways: [OSMDocument.Way], document: OSMDocument) -> [Int64: Int32] {
        var result: [Int64: Int32] = [:]
        var referenced = Set<Int64>()
        for way in ways { referenced.formUnion(way.nodes) }
        for node in document.nodes where referenced.contains(node.id) {
            let own = Self.levels(node.tags["level"])
            if own.count == 1 { result[node.id] = own[0] }
        }
        for way in ways {
            let floors = Self.levels(way.tags["level"])
            guard floors.count <= 1 else { continue }
            for ref in way.nodes where result[ref] == nil { result[ref] = floors.first ?? 0 }
        }
        for way in ways {
            let floors = Self.levels(way.tags["level"])
            guard floors.count > 1, let low = floors.min(), let high = floors.max() else { continue }
            let last = max(1, way.nodes.count - 1)
            for (position, ref) in way.nodes.enumerated() where result[ref] == nil {
                result[ref] = low + Int32((Double(high - low) * Double(position) / Double(last)).rounded())
            }
        }
        return result
    }
}
