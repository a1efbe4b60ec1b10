import CivicContract
import CivicService
import Contract
import Foundation
import ServiceKit
import Testing

extension BoundaryFileTests {
    @Test(
        "a district's chamber: given, or told from its id's TIGER layer or a local level; lookup tells Assembly 30 from Senate 30"
    )
    func chambers() async throws {
        let here = [[Self.square(lon: -120.66, lat: 35.28, half: 0.05)]]
        let nebraska = "ocd-jurisdiction/country:us/state:ne/government"
        let imported = [
            "CIVIC_JURISDICTIONS": (FeedSettings.defaultJurisdictions + [Self.atascadero, nebraska])
                .joined(separator: ",")
        ]
        let features = [
            // No chamber: the ids' layers say lower and upper.
            Self.feature(
                "state:ca/sldl:30", name: "California Assembly District 30", district: "30", coordinates: here),
            Self.feature("state:ca/sldu:30", name: "California Senate District 30", district: "30", coordinates: here),
            // An id of no layer, with its chamber given.
            Self.feature("state:ca/senate-1", name: "Senate 1", district: "S1", chamber: "upper", coordinates: here),
            // A city's ward: its council.
            Self.feature(
                "place:atascadero", Self.atascadero, name: "Atascadero", level: "local", coordinates: here),
            Self.feature(
                "place:atascadero/ward:1", Self.atascadero, name: "Ward 1", level: "local", district: "1",
                coordinates: here),
            // Nebraska's one chamber.
            Self.feature(
                "state:ne", nebraska, name: "Nebraska", coordinates: [[Self.square(lon: -99, lat: 41, half: 1)]]),
            Self.feature(
                "state:ne/sldu:1", nebraska, name: "Legislative District 1", district: "1",
                coordinates: [[Self.square(lon: -99, lat: 41, half: 0.5)]]),
        ]
        let path = try Self.file(try Self.collection(features))
        let atlas = try BoundaryHandler.configured(Self.environment(path, imported))
        let chambers = Dictionary(uniqueKeysWithValues: atlas.features.map { ($0.id, $0.properties.chamber) })
        #expect(chambers["state:ca/sldl:30"] == .lower && chambers["state:ca/sldu:30"] == .upper)
        #expect(chambers["state:ca/senate-1"] == .upper && chambers["place:atascadero/ward:1"] == .legislature)
        #expect(chambers["state:ne/sldu:1"] == .legislature && chambers["state:ne"] == .some(nil))

        try await CivicDatabase.with(atlas: atlas) { db in
            let state = try await db.call(Civic.Lookup.self, .init(lat: 35.28, lon: -120.66)).jurisdictions
                .filter { $0.jurisdiction.level == .state }
            // By chamber (upper first), then district.
            #expect(state.map(\.district) == ["17", "30", "S1", "30"])
            #expect(state.map(\.chamber) == [.upper, .upper, .upper, .lower])
            let served = try await db.call(Civic.Boundaries.self, Empty()).features
            #expect(served.first { $0.id == "state:ca/sldu:30" }?.properties.chamber == .upper)
        }

        let good = Self.feature("state:ca/sldl:98", district: "98", coordinates: here)
        let at = "features[1].properties.chamber"
        let values = "upper, lower or legislature (Open States' org_classification)"
        let cases: [([String: Any], String)] = [
            (
                Self.feature("state:ca/sldl:97", district: "97", chamber: "senate", coordinates: here),
                "\(at): \(values)"
            ),
            (Self.feature("state:ca/sldl:97", district: "97", chamber: 1, coordinates: here), "\(at): \(values)"),
            (
                Self.feature("state:ca/sldl:97", district: "97", chamber: "upper", coordinates: here),
                "\(at): lower, the chamber the layer in the feature's id names"
            ),
            (
                Self.feature("state:ca/district-97", district: "97", coordinates: here),
                "\(at): \(values), required for a district of a state or federal jurisdiction whose id names no "
                    + "chamber (…/sldu:…, …/sldl:…, …/cd:…)"
            ),
            (
                Self.feature("state:ca/x", chamber: "upper", coordinates: here),
                "\(at): null or absent for a jurisdiction's whole outline (district null)"
            ),
            (
                Self.feature(
                    "place:atascadero/ward:2", Self.atascadero, level: "local", district: "2", chamber: "lower",
                    coordinates: here),
                "\(at): legislature: a city's or county's districts elect to its one council or board"
            ),
        ]
        for (bad, rule) in cases {
            let path = try Self.file(try Self.collection([good, bad]))
            let error = try #require(throws: ProcessEnvironment.InvalidSetting.self) {
                try BoundaryHandler.configured(Self.environment(path, imported))
            }
            #expect(error.description == "CIVIC_BOUNDARIES_FILE=\(path) is not valid: expected \(rule)")
            try? FileManager.default.removeItem(atPath: path)
        }
        // An explicit null for a district is "not given": told from the id.
        let null = try Self.file(
            try Self.collection([Self.feature("state:ca/sldu:97", district: "97", chamber: NSNull(), coordinates: here)]
            ))
        #expect(try BoundaryHandler.configured(Self.environment(null)).features.last?.properties.chamber == .upper)
        try? FileManager.default.removeItem(atPath: path)
        try? FileManager.default.removeItem(atPath: null)
    }
}
