import Contract

// NavUP's locate and route calls are most of the campus traffic (a phone locates every few
// seconds), so their requests are read and their replies written by hand (`JSONReader`,
// `WireJSONEncodable`); the `Codable` conformances stay the contract and the fallback.

extension Routing.Locate.Request: WireJSONDecodable {
    public init(reading reader: inout JSONReader) throws(JSONReader.Malformed) {
        var scan: [Routing.ScanEntry]?
        var gps: Routing.GPSFix?
        try reader.readMembers { reader, key throws(JSONReader.Malformed) in
            switch key {
            case "scan":
                var entries: [Routing.ScanEntry] = []
                try reader.readArray { reader throws(JSONReader.Malformed) in
                    entries.append(try Routing.ScanEntry(reading: &reader))
                }
                scan = entries
            case "gps":
                gps = try reader.readOptional { reader throws(JSONReader.Malformed) in try Routing.GPSFix(reading: &reader) }
            default: return false
            }
            return true
        }
        self.init(scan: try reader.required(scan), gps: gps)
    }
}

extension Routing.ScanEntry: WireJSONDecodable {
    public init(reading reader: inout JSONReader) throws(JSONReader.Malformed) {
        var bssid: String?
        var rssi: Double?
        try reader.readMembers { reader, key throws(JSONReader.Malformed) in
            switch key {
            case "bssid": bssid = try reader.readString()
            case "rssi": rssi = try reader.readDouble()
            default: return false
            }
            return true
        }
        self.init(bssid: try reader.required(bssid), rssi: try reader.required(rssi))
    }
}

extension Routing.GPSFix: WireJSONDecodable {
    public init(reading reader: inout JSONReader) throws(JSONReader.Malformed) {
        var lat: Double?
        var lon: Double?
        var accuracy: Double?
        try reader.readMembers { reader, key throws(JSONReader.Malformed) in
            switch key {
            case "lat": lat = try reader.readDouble()
            case "lon": lon = try reader.readDouble()
            case "accuracy":
                accuracy = try reader.readOptional { reader throws(JSONReader.Malformed) in try reader.readDouble() }
            default: return false
            }
            return true
        }
        self.init(lat: try reader.required(lat), lon: try reader.required(lon), accuracy: accuracy)
    }
}

extension Routing.PlanRoute.Request: WireJSONDecodable {
    public init(reading reader: inout JSONReader) throws(JSONReader.Malformed) {
        var from: Routing.Place?
        var to: Routing.Place?
        var profile: String?
        try reader.readMembers { reader, key throws(JSONReader.Malformed) in
            switch key {
            case "from": from = try Routing.Place(reading: &reader)
            case "to": to = try Routing.Place(reading: &reader)
            case "profile":
                profile = try reader.readOptional { reader throws(JSONReader.Malformed) in try reader.readString() }
            default: return false
            }
            return true
        }
        self.init(from: try reader.required(from), to: try reader.required(to), profile: profile)
    }
}

extension Routing.Place: WireJSONDecodable {
    public init(reading reader: inout JSONReader) throws(JSONReader.Malformed) {
        self.init()
        try reader.readMembers { reader, key throws(JSONReader.Malformed) in
            switch key {
            case "venueId": venueId = try reader.readOptional { reader throws(JSONReader.Malformed) in try reader.readString() }
            case "lat": lat = try reader.readOptional { reader throws(JSONReader.Malformed) in try reader.readDouble() }
            case "lon": lon = try reader.readOptional { reader throws(JSONReader.Malformed) in try reader.readDouble() }
            case "level": level = try reader.readOptional { reader throws(JSONReader.Malformed) in try reader.readInt() }
            default: return false
            }
            return true
        }
    }
}

extension Routing.Locate.Reply: WireJSONEncodable {
    public func appendJSON(to json: inout [UInt8]) throws(EncodingError) {
        json.append(UInt8(ascii: "{"))
        json.appendJSONKey("accessPointsUsed", first: true)
        json.appendJSONNumber(accessPointsUsed)
        json.appendJSONKey("accuracy")
        try json.appendJSONNumber(accuracy)
        json.appendJSONKey("lat")
        try json.appendJSONNumber(lat)
        json.appendJSONKey("level")
        json.appendJSONNumber(level)
        json.appendJSONKey("lon")
        try json.appendJSONNumber(lon)
        json.appendJSONKey("source")
        json.appendJSONStringLiteral(source)
        json.append(UInt8(ascii: "}"))
    }
}

extension Routing.Route: WireJSONEncodable {
    public func appendJSON(to json: inout [UInt8]) throws(EncodingError) {
        json.reserveCapacity(json.count + 96 + path.count * 56 + steps.count * 96)
        json.append(UInt8(ascii: "{"))
        json.appendJSONKey("distance", first: true)
        try json.appendJSONNumber(distance)
        json.appendJSONKey("eta")
        try json.appendJSONNumber(eta)
        json.appendJSONKey("path")
        try json.appendJSONArray(path)
        json.appendJSONKey("profile")
        json.appendJSONStringLiteral(profile)
        json.appendJSONKey("steps")
        try json.appendJSONArray(steps)
        json.append(UInt8(ascii: "}"))
    }
}

extension Routing.Point: WireJSONEncodable {
    public func appendJSON(to json: inout [UInt8]) throws(EncodingError) {
        json.append(UInt8(ascii: "{"))
        json.appendJSONKey("lat", first: true)
        try json.appendJSONNumber(lat)
        json.appendJSONKey("level")
        json.appendJSONNumber(level)
        json.appendJSONKey("lon")
        try json.appendJSONNumber(lon)
        json.append(UInt8(ascii: "}"))
    }
}

extension Routing.Step: WireJSONEncodable {
    public func appendJSON(to json: inout [UInt8]) throws(EncodingError) {
        json.append(UInt8(ascii: "{"))
        json.appendJSONKey("distance", first: true)
        try json.appendJSONNumber(distance)
        json.appendJSONKey("instruction")
        json.appendJSONStringLiteral(instruction)
        json.appendJSONKey("kind")
        json.appendJSONStringLiteral(kind)
        json.appendJSONKey("level")
        json.appendJSONNumber(level)
        json.append(UInt8(ascii: "}"))
    }
}
