import CLibXML2
import Foundation

/// A read-only view of one element of a libxml2 tree. Valid only while the `xmlDoc` that owns
/// it is alive; ``PostageFileParser`` keeps every `XMLElement` inside that lifetime.
struct XMLElement {
    let node: xmlNodePtr

    /// The local name, e.g. `price`.
    var name: String { node.pointee.name.map { String(cString: $0) } ?? "" }

    /// The 1-based line the element starts on.
    var line: Int { Int(xmlGetLineNo(node)) }

    /// Child elements in document order (text and comments skipped).
    var children: [XMLElement] {
        var result: [XMLElement] = []
        var child = node.pointee.children
        while let current = child {
            if current.pointee.type == XML_ELEMENT_NODE { result.append(XMLElement(node: current)) }
            child = current.pointee.next
        }
        return result
    }

    /// The first child element called `name`.
    func child(_ name: String) -> XMLElement? { children.first { $0.name == name } }

    /// The children called `name`.
    func children(_ name: String) -> [XMLElement] { children.filter { $0.name == name } }

    /// An attribute's value, or nil when absent.
    func attribute(_ name: String) -> String? {
        guard let value = xmlGetProp(node, name) else { return nil }
        defer { backplane_xml_free(value) }
        return String(cString: value)
    }

    /// The text inside, whitespace at both ends removed.
    var text: String {
        guard let value = xmlNodeGetContent(node) else { return "" }
        defer { backplane_xml_free(value) }
        return String(cString: value).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
