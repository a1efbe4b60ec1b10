/// Request metadata is frame 2 of every bus request: the gateway writes it and every service
/// reads it, so both go through ``JSONReader`` and hand-written JSON rather than
/// `JSONEncoder`/`JSONDecoder` (about 6% of a routing worker's CPU under NavUP's load).
extension RequestMetadata: WireJSONDecodable, WireJSONEncodable {
    public init(reading reader: inout JSONReader) throws(JSONReader.Malformed) {
        var requestId: String?
        var traceparent: String?
        var actor: Actor?
        var deadline: Int64?
        var idempotencyKey: String?
        try reader.readMembers { reader, key throws(JSONReader.Malformed) in
            switch key {
            case "requestId": requestId = try reader.readString()
            case "traceparent": traceparent = try reader.readOptional { reader throws(JSONReader.Malformed) in try reader.readString() }
            case "actor": actor = try reader.readOptional { reader throws(JSONReader.Malformed) in try Actor(reading: &reader) }
            case "deadline": deadline = try reader.readOptional { reader throws(JSONReader.Malformed) in try reader.readInt64() }
            case "idempotencyKey":
                idempotencyKey = try reader.readOptional { reader throws(JSONReader.Malformed) in try reader.readString() }
            default: return false
            }
            return true
        }
        self.init(
            requestId: try reader.required(requestId), traceparent: traceparent, actor: actor, deadline: deadline,
            idempotencyKey: idempotencyKey)
    }

    public func appendJSON(to json: inout [UInt8]) {
        json.append(UInt8(ascii: "{"))
        var first = true
        if let actor {
            json.appendJSONKey("actor", first: first)
            actor.appendJSON(to: &json)
            first = false
        }
        if let deadline {
            json.appendJSONKey("deadline", first: first)
            json.appendJSONNumber(deadline)
            first = false
        }
        if let idempotencyKey {
            json.appendJSONKey("idempotencyKey", first: first)
            json.appendJSONStringLiteral(idempotencyKey)
            first = false
        }
        json.appendJSONKey("requestId", first: first)
        json.appendJSONStringLiteral(requestId)
        if let traceparent {
            json.appendJSONKey("traceparent")
            json.appendJSONStringLiteral(traceparent)
        }
        json.append(UInt8(ascii: "}"))
    }
}

extension Actor: WireJSONDecodable, WireJSONEncodable {
    public init(reading reader: inout JSONReader) throws(JSONReader.Malformed) {
        var userId: String?
        var roles: [String]?
        try reader.readMembers { reader, key throws(JSONReader.Malformed) in
            switch key {
            case "userId": userId = try reader.readString()
            case "roles":
                var list: [String] = []
                try reader.readArray { reader throws(JSONReader.Malformed) in list.append(try reader.readString()) }
                roles = list
            default: return false
            }
            return true
        }
        self.init(userId: try reader.required(userId), roles: try reader.required(roles))
    }

    public func appendJSON(to json: inout [UInt8]) {
        json.append(UInt8(ascii: "{"))
        json.appendJSONKey("roles", first: true)
        json.append(UInt8(ascii: "["))
        for (index, role) in roles.enumerated() {
            if index > 0 { json.append(UInt8(ascii: ",")) }
            json.appendJSONStringLiteral(role)
        }
        json.append(UInt8(ascii: "]"))
        json.appendJSONKey("userId")
        json.appendJSONStringLiteral(userId)
        json.append(UInt8(ascii: "}"))
    }
}

extension RequestMetadata {
    /// This metadata as frame 2 of a request.
    public func wireJSON() -> [UInt8] {
        var json: [UInt8] = []
        json.reserveCapacity(96 + requestId.utf8.count + (actor?.userId.utf8.count ?? 0))
        appendJSON(to: &json)
        return json
    }
}
