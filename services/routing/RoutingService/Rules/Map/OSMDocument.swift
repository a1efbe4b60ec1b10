import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The parts of an OpenStreetMap XML file the campus needs: nodes with coordinates and tags, and
/// ways with their node references and tags. Relations are ignored.
public struct OSMDocument: Sendable {
    /// A node.
    public struct Node: Sendable {
        public var id: Int64
        public var latitude: Double
        public var longitude: Double
        public var tags: [String: String]
    }

    /// A way.
    public struct Way: Sendable {
        public var id: Int64
        public var nodes: [Int64]
        public var tags: [String: String]
    }

    /// Every node, in file order.
    public var nodes: [Node] = []
    /// Every way, in file order.
    public var ways: [Way] = []

    /// Parses OSM XML with a streaming parser; `invalid_argument` when it is not well-formed OSM.
    public static func parse(_ data: Data) throws -> OSMDocument {
        let delegate = OSMParserDelegate()
        let parser = XMLParser(data: data)
        parser.delegate = delegate
        parser.shouldResolveExternalEntities = false
        guard parser.parse(), delegate.sawRoot else {
            let reason = parser.parserError.map { "\($0.localizedDescription) at line \(parser.lineNumber)" }
            throw MapError.malformed(reason ?? "no <osm> root element")
        }
        return delegate.document
    }
}

/// Why a map could not be imported.
public struct MapError: Error, Sendable, CustomStringConvertible {
    public let description: String
    /// Not OSM XML.
    public static func malformed(_ reason: String) -> MapError { MapError(description: "not OSM XML: \(reason)") }
    /// Parsed, but nothing to walk on.
    public static let empty = MapError(
        description: "the map has no walkable ways (highway=footway|path|corridor|steps|elevator)")
}

/// Collects elements as the parser streams them; one instance per parse, on one thread.
private final class OSMParserDelegate: NSObject, XMLParserDelegate {
    var document = OSMDocument()
    var sawRoot = false
    private var node: OSMDocument.Node?
    private var way: OSMDocument.Way?

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        switch name {
        case "osm":
            sawRoot = true
        case "node":
            guard let id = attributes["id"].flatMap(Int64.init), let lat = attributes["lat"].flatMap(Double.init),
                let lon = attributes["lon"].flatMap(Double.init)
            else { return }
            node = .init(id: id, latitude: lat, longitude: lon, tags: [:])
        case "way":
            guard let id = attributes["id"].flatMap(Int64.init) else { return }
            way = .init(id: id, nodes: [], tags: [:])
        case "nd":
            if let ref = attributes["ref"].flatMap(Int64.init) { way?.nodes.append(ref) }
        case "tag":
            guard let key = attributes["k"], let value = attributes["v"] else { return }
            if node != nil { node?.tags[key] = value } else if way != nil { way?.tags[key] = value }
        default:
            break
        }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "node", let node {
            document.nodes.append(node)
            self.node = nil
        } else if name == "way", let way {
            document.ways.append(way)
            self.way = nil
        }
    }
}
