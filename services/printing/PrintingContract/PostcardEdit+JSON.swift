import Contract

/// Reading an edit list from JSON, as the orders service (at order time) and printing (at preview
/// and print time) both do, so both refuse the same lists with the same messages.
extension PostcardEdit {
    /// Most edits in one list.
    public static let maxEdits = 100
    /// Most strokes in one `pen` edit.
    public static let maxStrokes = 100
    /// Most pen points in a whole list.
    public static let maxPoints = 10_000
    /// Most characters of a `text` edit.
    public static let maxTextLength = 200
    /// Most circles in one `redeye` edit.
    public static let maxRegions = 20
    /// Smallest side of a crop, as a fraction.
    public static let minimumCrop = 0.01

    /// The edits of `values` (none when nil); an `invalid_argument` whose `details.field` names the
    /// first problem under `field`, e.g. `postcard.edits[2].amount`.
    public static func list(_ values: [JSONValue]?, field: String) throws(ServiceError) -> [PostcardEdit] {
        guard let values else { return [] }
        guard values.count <= maxEdits else {
            throw .invalidArgument("at most \(maxEdits) edits", field: field)
        }
        var edits: [PostcardEdit] = []
        var points = 0
        for (index, value) in values.enumerated() {
            let edit = try PostcardEdit(json: value, field: "\(field)[\(index)]")
            if case .pen(let strokes) = edit { points += strokes.reduce(0) { $0 + $1.points.count } }
            guard points <= maxPoints else {
                throw .invalidArgument("at most \(maxPoints) pen points in all", field: "\(field)[\(index)].strokes")
            }
            edits.append(edit)
        }
        return edits
    }

    /// One edit from its JSON object; `field` names it in errors.
    public init(json: JSONValue, field: String) throws(ServiceError) {
        let object = try EditFields(json, field: field)
        let type = try object.string("type")
        switch type {
        case "brightness", "contrast":
            try object.only(["type", "amount"])
            let amount = try object.number("amount", in: -1...1)
            self = type == "brightness" ? .brightness(amount: amount) : .contrast(amount: amount)
        case "crop":
            try object.only(["type", "x", "y", "width", "height"])
            let rect = EditRect(
                x: try object.number("x", in: 0...1), y: try object.number("y", in: 0...1),
                width: try object.number("width", in: Self.minimumCrop...1),
                height: try object.number("height", in: Self.minimumCrop...1))
            guard rect.x + rect.width <= 1.000_001 else {
                throw .invalidArgument("x + width is at most 1", field: "\(field).width")
            }
            guard rect.y + rect.height <= 1.000_001 else {
                throw .invalidArgument("y + height is at most 1", field: "\(field).height")
            }
            self = .crop(rect)
        case "redeye":
            try object.only(["type", "regions", "detect"])
            let detect = try object.flag("detect")
            let regions =
                detect && object.members["regions"] == nil
                ? [] : try object.array("regions", count: (detect ? 0 : 1)...Self.maxRegions)
            var circles: [EditCircle] = []
            for (index, region) in regions.enumerated() {
                let circle = try EditFields(region, field: "\(field).regions[\(index)]")
                try circle.only(["x", "y", "radius"])
                circles.append(
                    EditCircle(
                        x: try circle.number("x", in: 0...1), y: try circle.number("y", in: 0...1),
                        radius: try circle.number("radius", in: 0.001...0.5)))
            }
            self = .redeye(regions: circles, detect: detect)
        case "filter":
            try object.only(["type", "name"])
            guard let filter = PostcardFilter(rawValue: try object.string("name")) else {
                let names = PostcardFilter.allCases.map(\.rawValue).joined(separator: ", ")
                throw .invalidArgument("name is one of \(names)", field: "\(field).name")
            }
            self = .filter(filter)
        case "pen":
            try object.only(["type", "strokes"])
            var strokes: [PenStroke] = []
            for (index, value) in try object.array("strokes", count: 1...Self.maxStrokes).enumerated() {
                strokes.append(try Self.stroke(value, field: "\(field).strokes[\(index)]"))
            }
            self = .pen(strokes: strokes)
        case "text":
            try object.only(["type", "text", "x", "y", "size", "color"])
            let text = try object.string("text")
            guard (1...Self.maxTextLength).contains(text.count) else {
                throw .invalidArgument("text is 1 to \(Self.maxTextLength) characters", field: "\(field).text")
            }
            self = .text(
                TextOverlay(
                    text: text, x: try object.number("x", in: 0...1), y: try object.number("y", in: 0...1),
                    size: try object.number("size", in: 0.01...0.5), color: try object.color("color")))
        default:
            throw .invalidArgument(
                "type is one of brightness, contrast, crop, redeye, filter, pen, text", field: "\(field).type")
        }
    }

    static func stroke(_ value: JSONValue, field: String) throws(ServiceError) -> PenStroke {
        let object = try EditFields(value, field: field)
        try object.only(["points", "color", "width"])
        var points: [EditPoint] = []
        for (index, pair) in try object.array("points", count: 1...maxPoints).enumerated() {
            guard case .array(let xy) = pair, xy.count == 2, case .number(let x) = xy[0], case .number(let y) = xy[1],
                (0...1).contains(x), (0...1).contains(y)
            else {
                throw .invalidArgument("a point is [x, y], each 0 to 1", field: "\(field).points[\(index)]")
            }
            points.append(EditPoint(x: x, y: y))
        }
        return PenStroke(
            points: points, color: try object.color("color"), width: try object.number("width", in: 0.001...0.25))
    }
}

/// The members of one JSON object of an edit, read with the field path in every error.
struct EditFields {
    let members: [String: JSONValue]
    let field: String

    init(_ value: JSONValue, field: String) throws(ServiceError) {
        guard case .object(let members) = value else { throw .invalidArgument("\(field) is an object", field: field) }
        self.members = members
        self.field = field
    }

    func only(_ keys: Set<String>) throws(ServiceError) {
        if let extra = members.keys.sorted().first(where: { !keys.contains($0) }) {
            throw .invalidArgument("'\(extra)' is not a field here", field: "\(field).\(extra)")
        }
    }

    func number(_ key: String, in range: ClosedRange<Double>) throws(ServiceError) -> Double {
        guard case .number(let value) = members[key], value.isFinite, range.contains(value) else {
            throw .invalidArgument(
                "\(key) is a number from \(range.lowerBound) to \(range.upperBound)", field: "\(field).\(key)")
        }
        return value
    }

    /// An optional boolean member; false when absent.
    func flag(_ key: String) throws(ServiceError) -> Bool {
        switch members[key] {
        case nil: return false
        case .bool(let value): return value
        default: throw .invalidArgument("\(key) is true or false", field: "\(field).\(key)")
        }
    }

    func string(_ key: String) throws(ServiceError) -> String {
        guard case .string(let value) = members[key] else {
            throw .invalidArgument("\(key) is a string", field: "\(field).\(key)")
        }
        return value
    }

    func array(_ key: String, count: ClosedRange<Int>) throws(ServiceError) -> [JSONValue] {
        guard case .array(let values) = members[key], count.contains(values.count) else {
            throw .invalidArgument(
                "\(key) is a list of \(count.lowerBound) to \(count.upperBound) items", field: "\(field).\(key)")
        }
        return values
    }

    func color(_ key: String) throws(ServiceError) -> EditColor {
        guard case .string(let value) = members[key], let color = EditColor(hex: value) else {
            throw .invalidArgument("\(key) is a colour #rrggbb", field: "\(field).\(key)")
        }
        return color
    }
}
