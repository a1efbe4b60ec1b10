import CivicContract
import CivicService
import Contract
import Foundation
import ServiceKit
import Testing

/// An operator's outlines (`CIVIC_BOUNDARIES_FILE`): read at start through the same function
/// civic's start-up calls (``BoundaryHandler/configured(_:)``), laid over the bundled ones by
/// feature id, served by `boundaries` and answered by `lookup` through civic's operation table
/// on a real database; every rule a file can break stops the start with the file, the feature's
/// index and the rule.
@Suite("civic: an operator's outlines (CIVIC_BOUNDARIES_FILE)")
struct BoundaryFileTests {
    static let state = "ocd-jurisdiction/country:us/state:ca/government"
    static let atascadero = "ocd-jurisdiction/country:us/state:ca/place:atascadero/government"

    /// A closed square ring of `half` degrees either side of a centre.
    static func square(lon: Double, lat: Double, half: Double) -> [[Double]] {
        [
            [lon - half, lat - half], [lon + half, lat - half], [lon + half, lat + half], [lon - half, lat + half],
            [lon - half, lat - half],
        ]
    }

    /// A feature as an operator's file would hold it.
    static func feature(
        _ id: String, _ jurisdiction: String = state, name: String = "A district", level: String = "state",
        district: String? = nil, chamber: Any? = nil, type: String = "MultiPolygon", coordinates: Any
    ) -> [String: Any] {
        var properties: [String: Any] = [
            "jurisdictionId": jurisdiction, "name": name, "level": level,
            "district": district.map { $0 as Any } ?? NSNull(),
        ]
        properties["chamber"] = chamber
        return [
            "type": "Feature", "id": id, "properties": properties,
            "geometry": ["type": type, "coordinates": coordinates] as [String: Any],
        ]
    }

    /// `features` as a FeatureCollection's text.
    static func collection(_ features: [[String: Any]]) throws -> String {
        let object: [String: Any] = ["type": "FeatureCollection", "features": features]
        return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    /// `text` in a new temporary file; its path.
    static func file(_ text: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "civic-outlines-\(UUID().uuidString).geojson")
        try Data(text.utf8).write(to: url)
        return url.path
    }

    static func environment(_ path: String, _ more: [String: String] = [:]) -> ProcessEnvironment {
        ProcessEnvironment(["CIVIC_BOUNDARIES_FILE": path].merging(more) { _, new in new })
    }

    static func names(_ matches: [Civic.PlaceMatch]) -> [String] {
        matches.map { $0.jurisdiction.name + ($0.district.map { " \($0)" } ?? "") }
    }

    /// Assembly District 30 as a small square around downtown San Luis Obispo (replacing the
    /// county-wide approximation), and a made-up Assembly District 99 around Fresno, as a Polygon.
    static func districtsFile() throws -> String {
        try file(
            try collection([
                feature(
                    "state:ca/sldl:30", name: "California Assembly District 30", district: "30",
                    coordinates: [[square(lon: -120.66, lat: 35.28, half: 0.05)]]),
                feature(
                    "state:ca/sldl:99", name: "California Assembly District 99", district: "99", type: "Polygon",
                    coordinates: [square(lon: -119.78, lat: 36.74, half: 0.1)]),
            ]))
    }

    @Test(
        "a file's district replaces the bundled one with its id and another is added: lookup answers them, boundaries serves them"
    )
    func loaded() async throws {
        let path = try Self.districtsFile()
        let atlas = try BoundaryHandler.configured(Self.environment(path))
        let shipped = try BoundaryHandler.shipped()
        #expect(
            atlas.features.map(\.id) == shipped.features.map(\.id) + ["state:ca/sldl:99"],
            "the replaced feature keeps its place, the new one comes last")
        #expect(
            atlas.encoded != shipped.encoded, "the reply's bytes, and so the gateway's ETag, change with the outlines")
        #expect(
            try BoundaryHandler.configured(Self.environment(path)).encoded == atlas.encoded,
            "the same file, the same bytes")
        #expect(
            try BoundaryHandler.configured(ProcessEnvironment([:])).encoded == shipped.encoded,
            "unset: the bundled outlines")

        try await CivicDatabase.with(atlas: atlas) { db in
            func lookup(_ lat: Double, _ lon: Double) async throws -> [String] {
                Self.names(try await db.call(Civic.Lookup.self, .init(lat: lat, lon: lon)).jurisdictions)
            }
            // Fresno: in the made-up district 99.
            #expect(try await lookup(36.74, -119.78) == ["California 99", "United States"])
            #expect(try await lookup(36.9, -119.78) == ["California", "United States"], "outside its square")
            // Downtown San Luis Obispo is in the new district 30; Paso Robles, in the county, no longer is.
            #expect(
                try await lookup(35.2828, -120.6596) == [
                    "San Luis Obispo", "San Luis Obispo County", "California 17", "California 30",
                    "United States CA-24",
                ])
            #expect(
                try await lookup(35.6266, -120.691) == [
                    "San Luis Obispo County", "California 17", "United States CA-19",
                ])

            let served = try await db.call(Civic.Boundaries.self, Empty()).features
            #expect(served == atlas.features)
            let added = try #require(served.first { $0.id == "state:ca/sldl:99" })
            #expect(
                added.properties
                    == .init(
                        jurisdictionId: Self.state, name: "California Assembly District 99", level: .state,
                        district: "99", chamber: .lower))
            #expect(added.geometry.coordinates == [[Self.square(lon: -119.78, lat: 36.74, half: 0.1)]])
            let replaced = try #require(served.first { $0.id == "state:ca/sldl:30" })
            #expect(replaced.geometry.coordinates == [[Self.square(lon: -120.66, lat: 35.28, half: 0.05)]])
            #expect(replaced.properties.sample == nil, "an operator's outline is not a sample")
            #expect(shipped.features.first { $0.id == "state:ca/sldl:30" }?.properties.sample == true)
        }
    }

    @Test(
        "a jurisdiction civic imports (CIVIC_JURISDICTIONS) may have outlines; a district needs its jurisdiction's whole outline"
    )
    func importedJurisdictions() throws {
        let whole = Self.feature(
            "place:atascadero", Self.atascadero, name: "Atascadero", level: "local",
            coordinates: [[Self.square(lon: -120.67, lat: 35.49, half: 0.04)]])
        let ward = Self.feature(
            "place:atascadero/ward:1", Self.atascadero, name: "Atascadero Ward 1", level: "local", district: "1",
            coordinates: [[Self.square(lon: -120.67, lat: 35.49, half: 0.02)]])
        let imported = [
            "CIVIC_JURISDICTIONS": FeedSettings.defaultJurisdictions.joined(separator: ",") + "," + Self.atascadero
        ]
        let path = try Self.file(try Self.collection([whole, ward]))
        let atlas = try BoundaryHandler.configured(Self.environment(path, imported))
        #expect(
            Self.names(atlas.matches(lat: 35.49, lon: -120.67)) == [
                "Atascadero 1", "San Luis Obispo County", "California 17", "California 30", "United States CA-19",
            ])

        let refusals: [(String, [String: String], String)] = [
            (
                try Self.file(try Self.collection([whole])), [:],
                "features[0].properties.jurisdictionId: a jurisdiction civic knows (one of the bundled outlines' or of CIVIC_JURISDICTIONS)"
            ),
            (
                try Self.file(try Self.collection([ward])), imported,
                "features[0].properties.jurisdictionId: a jurisdiction with a whole outline (a feature with district null, in the file or bundled)"
            ),
        ]
        for (path, more, rule) in refusals {
            let error = try #require(throws: ProcessEnvironment.InvalidSetting.self) {
                try BoundaryHandler.configured(Self.environment(path, more))
            }
            #expect(error.description == "CIVIC_BOUNDARIES_FILE=\(path) is not valid: expected \(rule)")
        }
    }

    @Test(
        "make_boundaries.py --tiger turns Census TIGER district records into simplified features civic loads over the approximations"
    )
    func fromTiger() throws {
        func circle(lon: Double, lat: Double, radius: Double) -> [[Double]] {
            let points = (0..<200).map { index in
                let angle = 2 * Double.pi * Double(index) / 200
                return [lon + radius * cos(angle), lat + radius * sin(angle)]
            }
            return points + [points[0]]
        }
        // The shape of a TIGER/Line SLDL layer exported to GeoJSON: district 030 around downtown
        // San Luis Obispo, and a water-only area (ZZZ), which is left out.
        let records: [[String: Any]] = [
            [
                "type": "Feature",
                "properties": ["STATEFP": "06", "SLDLST": "030", "NAMELSAD": "Assembly District 30", "GEOID": "06030"],
                "geometry": ["type": "Polygon", "coordinates": [circle(lon: -120.66, lat: 35.28, radius: 0.08)]]
                    as [String: Any],
            ],
            [
                "type": "Feature",
                "properties": ["STATEFP": "06", "SLDLST": "ZZZ", "NAMELSAD": "Assembly Districts not defined"],
                "geometry": ["type": "Polygon", "coordinates": [circle(lon: -121.5, lat: 35.0, radius: 0.1)]]
                    as [String: Any],
            ],
        ]
        let layer: [String: Any] = ["type": "FeatureCollection", "features": records]
        let tiger = try Self.file(String(decoding: try JSONSerialization.data(withJSONObject: layer), as: UTF8.self))
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(
                "services/civic/tools/boundaries/make_boundaries.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, "--tiger", tiger]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let path = try Self.file(String(decoding: output, as: UTF8.self))
        let atlas = try BoundaryHandler.configured(Self.environment(path))
        let district = try #require(atlas.features.first { $0.id == "state:ca/sldl:30" })
        #expect(
            district.properties
                == .init(
                    jurisdictionId: Self.state, name: "California Assembly District 30", level: .state, district: "30",
                    chamber: .lower))
        let vertices = district.geometry.coordinates.flatMap { $0 }.map(\.count)
        #expect(vertices.count == 1 && vertices[0] > 10 && vertices[0] < 100, "simplified: \(vertices)")
        #expect(
            atlas.features.count == (try BoundaryHandler.shipped().features.count),
            "the water-only area is left out, the sample outline replaced")
        #expect(Self.names(atlas.matches(lat: 35.2828, lon: -120.6596)).contains("California 30"))
        #expect(!Self.names(atlas.matches(lat: 35.6266, lon: -120.691)).contains("California 30"))
        try? FileManager.default.removeItem(atPath: tiger)
        try? FileManager.default.removeItem(atPath: path)
    }

    @Test(
        "each rule a file can break stops the start with one message naming the file, the feature's index and the rule")
    func refusals() throws {
        let good = Self.feature(
            "state:ca/sldl:98", district: "98", coordinates: [[Self.square(lon: -119.0, lat: 36.0, half: 0.1)]])
        func second(_ bad: [String: Any]) throws -> String { try Self.collection([good, bad]) }
        var open = Self.square(lon: -119.0, lat: 36.0, half: 0.1)
        open.removeLast()
        let triangle = [[-119.0, 36.0], [-118.9, 36.0], [-119.0, 36.1], [-119.0, 36.0]]
        let short = [[-119.0, 36.0], [-118.9, 36.0], [-119.0, 36.0]]
        var north = Self.square(lon: -119.0, lat: 36.0, half: 0.1)
        north[2] = [-118.9, 95.0]
        var east = Self.square(lon: -119.0, lat: 36.0, half: 0.1)
        east[1] = [181.0, 35.9]
        let hole = [Self.square(lon: -119.0, lat: 36.0, half: 0.1), open]
        let at = "features[1]"
        let cases: [(String, String)] = [
            ("{\"type\": \"FeatureCollection\", \"features\": [", "JSON text (a GeoJSON FeatureCollection)"),
            (
                #"{"type": "Feature", "features": []}"#,
                #"a GeoJSON FeatureCollection (an object with "type": "FeatureCollection" and a "features" array)"#
            ),
            (try second(["type": "Polygon"]), #"\#(at): an object with "type": "Feature""#),
            (try second(Self.feature("", coordinates: [[triangle]])), "\(at).id: a non-empty string"),
            (
                try second(Self.feature("state:ca/sldl:98", district: "98", coordinates: [[triangle]])),
                "\(at).id: an id no other feature has (features[0] has it)"
            ),
            (
                try second(
                    Self.feature("x", "ocd-jurisdiction/country:us/state:nv/government", coordinates: [[triangle]])),
                "\(at).properties.jurisdictionId: a jurisdiction civic knows (one of the bundled outlines' or of CIVIC_JURISDICTIONS)"
            ),
            (
                try second(Self.feature("x", name: "", coordinates: [[triangle]])),
                "\(at).properties.name: a non-empty string"
            ),
            (
                try second(Self.feature("x", level: "federal", coordinates: [[triangle]])),
                "\(at).properties.level: state, the jurisdiction's level"
            ),
            (
                try second(Self.feature("x", district: "", coordinates: [[triangle]])),
                "\(at).properties.district: a non-empty string, or null for the whole jurisdiction"
            ),
            (
                try second(Self.feature("x", type: "Point", coordinates: [-119.0, 36.0])),
                "\(at).geometry.type: MultiPolygon or Polygon"
            ),
            (
                try second(Self.feature("x", type: "LineString", coordinates: triangle)),
                "\(at).geometry.type: MultiPolygon or Polygon"
            ),
            (
                try second(Self.feature("x", coordinates: [])),
                "\(at).geometry.coordinates: a non-empty array of polygons"
            ),
            (
                try second(Self.feature("x", coordinates: [[open]])),
                "\(at).geometry.coordinates[0][0]: a closed ring (its last position equal to its first)"
            ),
            (
                try second(Self.feature("x", coordinates: [[triangle], hole])),
                "\(at).geometry.coordinates[1][1]: a closed ring (its last position equal to its first)"
            ),
            (
                try second(Self.feature("x", type: "Polygon", coordinates: [open])),
                "\(at).geometry.coordinates[0]: a closed ring (its last position equal to its first)"
            ),
            (
                try second(Self.feature("x", coordinates: [[short]])),
                "\(at).geometry.coordinates[0][0]: a ring of at least 4 positions"
            ),
            (
                try second(Self.feature("x", coordinates: [[north]])),
                "\(at).geometry.coordinates[0][0][2]: [longitude, latitude] with longitude from -180 to 180 and latitude from -90 to 90"
            ),
            (
                try second(Self.feature("x", coordinates: [[east]])),
                "\(at).geometry.coordinates[0][0][1]: [longitude, latitude] with longitude from -180 to 180 and latitude from -90 to 90"
            ),
            (
                try second(
                    Self.feature("x", coordinates: [[[[-119.0, 36.0], [-118.9], [-119.0, 36.1], [-119.0, 36.0]]]])),
                "\(at).geometry.coordinates[0][0][1]: [longitude, latitude] with longitude from -180 to 180 and latitude from -90 to 90"
            ),
        ]
        for (text, rule) in cases {
            let path = try Self.file(text)
            let error = try #require(throws: ProcessEnvironment.InvalidSetting.self) {
                try BoundaryHandler.configured(Self.environment(path))
            }
            let line = "CIVIC_BOUNDARIES_FILE=\(path) is not valid: expected \(rule)"
            #expect(error.description == line)
            #expect(SafeErrorDescription.of(error) == line, "the start-up's log line says it whole")
            try? FileManager.default.removeItem(atPath: path)
        }
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent(
            "civic-no-such-\(UUID().uuidString)"
        ).path
        let error = try #require(throws: ProcessEnvironment.InvalidSetting.self) {
            try BoundaryHandler.configured(Self.environment(missing))
        }
        #expect(error.description == "CIVIC_BOUNDARIES_FILE=\(missing) is not valid: expected a readable file")
    }
}
