import CivicContract
import Contract

/// JSON written straight into bytes for the replies read most (a page of bills, the highlights):
/// no `Encodable` round trip through a generic encoder per request. Members are written in the
/// sorted order `Wire`'s encoder uses and an absent optional is left out as it does, so a reply
/// decodes to the same value either way (``CivicTests`` hold the two to each other).
public struct ReplyJSON: Sendable {
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 4096) { bytes.reserveCapacity(capacity) }

    /// Text as it is (punctuation and member names).
    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// A JSON string: `"` and `\` escaped, control characters as `\n`, `\t`, ... or `\u00XX`;
    /// everything else (`/` and non-ASCII included) as its UTF-8.
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var start = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                switch byte {
                case UInt8(ascii: "\""): raw("\\\"")
                case UInt8(ascii: "\\"): raw("\\\\")
                case 0x0A: raw("\\n")
                case 0x0D: raw("\\r")
                case 0x09: raw("\\t")
                case 0x08: raw("\\b")
                case 0x0C: raw("\\f")
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    raw("\\u00")
                    bytes.append(hex[Int(byte >> 4)])
                    bytes.append(hex[Int(byte & 0x0f)])
                }
                start = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// A bill as lists show it.
    mutating func summary(_ bill: Civic.BillSummary) {
        raw("{\"id\":")
        string(bill.id)
        raw(",\"identifier\":")
        string(bill.identifier)
        if let introducedOn = bill.introducedOn {
            raw(",\"introducedOn\":")
            string(introducedOn)
        }
        raw(",\"jurisdiction\":{\"id\":")
        string(bill.jurisdiction.id)
        raw(",\"level\":")
        string(bill.jurisdiction.level.rawValue)
        raw(",\"name\":")
        string(bill.jurisdiction.name)
        raw("}")
        if let latestAction = bill.latestAction {
            raw(",\"latestAction\":")
            string(latestAction)
        }
        if let latestActionOn = bill.latestActionOn {
            raw(",\"latestActionOn\":")
            string(latestActionOn)
        }
        raw(",\"session\":")
        string(bill.session)
        raw(",\"status\":")
        string(bill.status.rawValue)
        raw(",\"subjects\":[")
        for (index, subject) in bill.subjects.enumerated() {
            if index > 0 { raw(",") }
            string(subject)
        }
        raw("]")
        if let summary = bill.summary {
            raw(",\"summary\":")
            string(summary)
        }
        raw(",\"title\":")
        string(bill.title)
        raw(",\"updatedAt\":")
        string(bill.updatedAt)
        raw("}")
    }

    /// `[summary, ...]`.
    mutating func summaries(_ bills: [Civic.BillSummary]) {
        raw("[")
        for (index, bill) in bills.enumerated() {
            if index > 0 { raw(",") }
            summary(bill)
        }
        raw("]")
    }

    /// A page of bills (`list_bills`'s reply).
    public static func page(_ page: Civic.ListBills.Reply) -> [UInt8] {
        var json = ReplyJSON(capacity: 512 + 640 * page.items.count)
        json.raw("{\"items\":")
        json.summaries(page.items)
        if let cursor = page.nextCursor {
            json.raw(",\"nextCursor\":")
            json.string(cursor)
        }
        json.raw("}")
        return json.bytes
    }

    /// The highlights per level (`highlighted_bills`'s reply).
    public static func highlights(_ reply: Civic.HighlightedBills.Reply) -> [UInt8] {
        var json = ReplyJSON(capacity: 256 + 640 * reply.levels.reduce(0) { $0 + $1.bills.count })
        json.raw("{\"levels\":[")
        for (index, level) in reply.levels.enumerated() {
            if index > 0 { json.raw(",") }
            json.raw("{\"bills\":")
            json.summaries(level.bills)
            json.raw(",\"level\":")
            json.string(level.level.rawValue)
            json.raw("}")
        }
        json.raw("]}")
        return json.bytes
    }
}
