import CLibXML2
import Contract
import Foundation

/// Reads a postage file with libxml2: well-formedness, then validation against `postage.xsd`,
/// then the rules a schema cannot say (one catch-all zone, every zone priced for every size,
/// dates in order, a stamp whose bytes are the image they claim). Every problem names the line
/// and the element.
public enum PostageFileParser {
    /// Why a file was refused: every problem found, in document order.
    public struct Rejection: Error, Sendable, Hashable {
        public let problems: [PostageProblem]

        /// The `invalid_argument` error a caller sees.
        public var serviceError: ServiceError { PostageProblem.error(problems) }
    }

    /// libxml2 wants `xmlInitParser` once before it is used from several threads.
    private static let initialized: Bool = {
        xmlInitParser()
        return true
    }()

    /// Parses and validates `document` against `schema` (the XSD's bytes).
    public static func parse(_ document: [UInt8], schema: [UInt8]) throws(Rejection) -> PostageFile {
        precondition(initialized)
        guard !document.isEmpty else {
            throw Rejection(problems: [PostageProblem(line: 0, element: nil, "the file is empty")])
        }
        guard let context = xmlNewParserCtxt() else {
            throw Rejection(problems: [PostageProblem(line: 0, element: nil, "out of memory")])
        }
        defer { xmlFreeParserCtxt(context) }
        let options = Int32(
            bitPattern: XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
        let parsed = document.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                xmlCtxtReadMemory(context, $0.baseAddress, Int32($0.count), "postage.xml", nil, options)
            }
        }
        guard let doc = parsed else {
            throw Rejection(problems: [problem(from: xmlCtxtGetLastError(context), fallback: "not well-formed XML")])
        }
        defer { xmlFreeDoc(doc) }
        let invalid = validate(doc, schema: schema)
        guard invalid.isEmpty else { throw Rejection(problems: invalid) }
        guard let root = xmlDocGetRootElement(doc) else {
            throw Rejection(problems: [PostageProblem(line: 0, element: nil, "the file has no root element")])
        }
        return try PostageFileReader(root: XMLElement(node: root)).read()
    }

    /// The schema errors of `doc`, in the order libxml2 reports them.
    static func validate(_ doc: xmlDocPtr, schema: [UInt8]) -> [PostageProblem] {
        let collector = ProblemCollector()
        let compiled: xmlSchemaPtr? = schema.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                guard let parser = xmlSchemaNewMemParserCtxt($0.baseAddress, Int32($0.count)) else { return nil }
                defer { xmlSchemaFreeParserCtxt(parser) }
                xmlSchemaSetParserStructuredErrors(parser, { _, _ in }, nil)
                return xmlSchemaParse(parser)
            }
        }
        guard let compiled else {
            return [PostageProblem(line: 0, element: nil, "internal: postage.xsd does not load")]
        }
        defer { xmlSchemaFree(compiled) }
        guard let validator = xmlSchemaNewValidCtxt(compiled) else {
            return [PostageProblem(line: 0, element: nil, "out of memory")]
        }
        defer { xmlSchemaFreeValidCtxt(validator) }
        withExtendedLifetime(collector) {
            xmlSchemaSetValidStructuredErrors(
                validator,
                { user, error in
                    guard let user, let error else { return }
                    Unmanaged<ProblemCollector>.fromOpaque(user).takeUnretainedValue().problems.append(
                        PostageFileParser.problem(from: error, fallback: "does not match postage.xsd"))
                }, Unmanaged.passUnretained(collector).toOpaque())
            _ = xmlSchemaValidateDoc(validator, doc)
        }
        // Identity-constraint errors (xs:keyref, xs:unique) carry the line but no node.
        guard let root = xmlDocGetRootElement(doc) else { return collector.problems }
        return collector.problems.map { problem in
            guard problem.element == nil, problem.line > 0 else { return problem }
            var named = problem
            named.element = element(startingOn: problem.line, in: XMLElement(node: root))?.name
            return named
        }
    }

    /// The first element, in document order, that starts on `line`.
    static func element(startingOn line: Int, in element: XMLElement) -> XMLElement? {
        if element.line == line { return element }
        for child in element.children {
            if let found = Self.element(startingOn: line, in: child) { return found }
        }
        return nil
    }

    /// A libxml2 error as a problem: its line, the element it points at, its message.
    static func problem(from error: xmlErrorPtr?, fallback: String) -> PostageProblem {
        guard let error else { return PostageProblem(line: 0, element: nil, fallback) }
        var element: String?
        if let node = error.pointee.node?.assumingMemoryBound(to: xmlNode.self),
            node.pointee.type == XML_ELEMENT_NODE, let name = node.pointee.name
        {
            element = String(cString: name)
        }
        let message = error.pointee.message.map { String(cString: $0) } ?? fallback
        let line = Int(error.pointee.line)
        return PostageProblem(
            line: line, element: element, message.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Gathers problems from libxml2's callback, which runs synchronously on the validating thread.
    private final class ProblemCollector {
        var problems: [PostageProblem] = []
    }
}
