import CivicContract
import CivicService
import Contract
import Foundation
import Testing

@Suite("civic: rules (no I/O)")
struct RulesTests {
    @Test("status follows the last decisive action; councils pass in one vote, legislatures in two")
    func status() {
        #expect(BillStatusRule.status(actions: [["introduction"]], chambers: 2) == .introduced)
        #expect(BillStatusRule.status(actions: [["introduction"], ["referral-committee"]], chambers: 2) == .inCommittee)
        #expect(
            BillStatusRule.status(actions: [["introduction"], ["referral-committee"], ["passage"]], chambers: 2)
                == .passedOneChamber)
        #expect(BillStatusRule.status(actions: [["introduction"], ["passage"], ["passage"]], chambers: 2) == .passed)
        #expect(BillStatusRule.status(actions: [["passage"], ["passage"], ["executive-veto"]], chambers: 2) == .vetoed)
        #expect(
            BillStatusRule.status(actions: [["passage"], ["passage"], ["executive-veto"], ["veto-override-passage"]],
                chambers: 2) == .enacted)
        #expect(BillStatusRule.status(actions: [["introduction"], ["passage"]], chambers: 1) == .passed)
        #expect(BillStatusRule.status(actions: [["introduction"], ["adoption"]], chambers: 1) == .enacted)
        #expect(BillStatusRule.status(actions: [["referral-committee"], ["failure"]], chambers: 2) == .failed)
        #expect(BillStatusRule.chambers(at: .local) == 1 && BillStatusRule.chambers(at: .federal) == 2)
    }

    @Test("the level comes from the Open Civic Data id, else the feed's classification")
    func levels() {
        #expect(JurisdictionLevel.of(id: "ocd-jurisdiction/country:us/state:ca/place:san_luis_obispo/government") == .local)
        #expect(JurisdictionLevel.of(id: "ocd-jurisdiction/country:us/state:ca/county:san_luis_obispo/government") == .county)
        #expect(JurisdictionLevel.of(id: "ocd-jurisdiction/country:us/state:ca/government") == .state)
        #expect(JurisdictionLevel.of(id: "ocd-jurisdiction/country:us/government") == .federal)
        #expect(JurisdictionLevel.of(id: "ocd-jurisdiction/x", classification: "municipality") == .local)
    }

    static let billJSON = """
        {"id": "ocd-bill/1", "session": "2025-2026", "identifier": "AB 7", "title": "Funds bus service",
         "jurisdiction": {"id": "ocd-jurisdiction/country:us/state:ca/government", "name": "California",
                          "classification": "state"},
         "subject": ["Transportation", "Budget"], "created_at": "2026-02-01T00:00:00+00:00",
         "updated_at": "2026-03-04T05:06:07.123+00:00", "first_action_date": "2026-02-01",
         "abstracts": [{"abstract": "Money for buses.", "note": null}],
         "actions": [{"description": "Passed", "date": "2026-03-01", "classification": ["passage"], "order": 2},
                     {"description": "Introduced", "date": "2026-02-01", "classification": ["introduction"], "order": 1}],
         "sponsorships": [{"name": "Ana Ruiz", "primary": true, "person": {"id": "ocd-person/9", "name": "Ana Ruiz"}}],
         "votes": [], "versions": [], "documents": [], "sources": [{"url": "https://example.gov/ab7"}]}
        """

    @Test("a feed bill becomes a record: timeline in order, status, dates; a change names its fields")
    func billRecord() throws {
        let bill = try OpenStates.makeDecoder().decode(OpenStates.Bill.self, from: Data(Self.billJSON.utf8))
        let record = try BillRecord(bill)
        #expect(record.jurisdiction.level == .state)
        #expect(record.detail.actions.map(\.description) == ["Introduced", "Passed"])
        #expect(record.status == .passedOneChamber)
        #expect(record.introducedOn == "2026-02-01" && record.latestActionOn == "2026-03-01")
        #expect(record.latestAction == "Passed" && record.summary == "Money for buses.")
        #expect(record.subjects == ["Budget", "Transportation"])
        #expect(abs(record.sourceUpdatedAt.timeIntervalSince1970 - 1_772_600_767.123) < 0.001)
        #expect(record.changedFields(since: record.fingerprints).isEmpty)
        let changedJSON = Self.billJSON.replacingOccurrences(of: "Funds bus service", with: "Funds bus and rail service")
            .replacingOccurrences(
                of: #""order": 1}]"#,
                with: #""order": 1}, {"description": "Signed", "date": "2026-04-01", "classification": ["executive-signature"]}]"#)
        let next = try BillRecord(try OpenStates.makeDecoder().decode(OpenStates.Bill.self, from: Data(changedJSON.utf8)))
        #expect(next.changedFields(since: record.fingerprints) == ["actions", "status", "title"])
        #expect(next.status == .enacted)
        var broken = bill
        broken.updatedAt = "soon"
        #expect(throws: ServiceError.self) { try BillRecord(broken) }
    }

    @Test("search text and filters are checked, naming the field")
    func query() throws {
        #expect(try BillQuery.query("  housing ") == "housing")
        #expect(try BillQuery.query(nil) == nil && (try BillQuery.query("   ")) == nil)
        #expect(throws: ServiceError.self) { try BillQuery.query("?!") }
        #expect(throws: ServiceError.self) { try BillQuery.query(String(repeating: "x", count: 201)) }
        let filter = try BillQuery.filter(.init(level: "county", status: "in_committee", sort: "introduced"), topicSubjects: nil)
        #expect(filter.level == .county && filter.status == .inCommittee && filter.sort == .introduced)
    }

    @Test("import slots: one per interval, the same key for every replica")
    func slots() {
        let at = Date(timeIntervalSince1970: 1_795_521_600 + 1_234)
        let slot = ImportSlot(containing: at, intervalSeconds: 3600)
        #expect(slot.start == Date(timeIntervalSince1970: 1_795_521_600))
        #expect(slot.dedupeKey == ImportSlot(containing: at.addingTimeInterval(2_000), intervalSeconds: 3600).dedupeKey)
        #expect(slot.dedupeKey != ImportSlot(containing: at.addingTimeInterval(3_600), intervalSeconds: 3600).dedupeKey)
    }
}

@Suite("civic: point in polygon on the shipped outlines (no I/O)")
struct PlaceTests {
    let atlas: BoundaryHandler

    init() throws { atlas = try BoundaryHandler.shipped() }

    func names(lat: Double, lon: Double) -> [String] {
        atlas.matches(lat: lat, lon: lon).map { $0.jurisdiction.name + ($0.district.map { " \($0)" } ?? "") }
    }

    @Test("downtown San Luis Obispo is in the city, the county, California with its districts, and the US")
    func sanLuisObispo() {
        #expect(
            names(lat: 35.2828, lon: -120.6596) == [
                "San Luis Obispo", "San Luis Obispo County", "California 17", "California 30", "United States CA-24",
            ])
        let levels = atlas.matches(lat: 35.2828, lon: -120.6596).map(\.jurisdiction.level)
        #expect(levels == levels.sorted())
        #expect(names(lat: 35.6266, lon: -120.691) == ["San Luis Obispo County", "California 17", "California 30", "United States CA-19"])
        #expect(names(lat: 34.0522, lon: -118.2437) == ["California", "United States"])
        #expect(names(lat: 39.5296, lon: -119.8138) == ["United States"])
        #expect(names(lat: 61.2, lon: -149.9) == ["United States"])
        #expect(names(lat: 36.0, lon: -125.5).isEmpty)
        #expect(names(lat: 32.51, lon: -117.02).isEmpty)
    }

    @Test("a point in a California Assembly and Senate district answers both, each with its chamber, upper first")
    func chambers() throws {
        let matches = atlas.matches(lat: 35.2828, lon: -120.6596)
        let districts = matches.filter { $0.district != nil }.map {
            [$0.jurisdiction.name, $0.district!, $0.chamber?.rawValue]
        }
        #expect(
            districts == [
                ["California", "17", "upper"], ["California", "30", "lower"], ["United States", "CA-24", "lower"],
            ])
        #expect(matches.filter { $0.district == nil }.allSatisfy { $0.chamber == nil })
        let shipped = Dictionary(uniqueKeysWithValues: atlas.features.map { ($0.id, $0.properties.chamber) })
        #expect(shipped["state:ca/sldl:30"] == .lower && shipped["state:ca/sldu:17"] == .upper)
        #expect(shipped["state:ca"] == .some(nil) && shipped["country:us/cd:ca-24"] == .lower)
        // Two districts of one number are two matches, in one order whatever the file's order.
        let square = [[[[-1.0, -1.0], [1, -1], [1, 1], [-1, 1], [-1, -1]]]]
        let state = "ocd-jurisdiction/country:us/state:ca/government"
        func outline(_ id: String, _ district: String?, _ chamber: Civic.Chamber?) -> Civic.BoundaryFeature {
            .init(
                id: id,
                properties: .init(
                    jurisdictionId: state, name: "California", level: .state, district: district, chamber: chamber),
                geometry: .init(coordinates: square))
        }
        let features = [
            outline("state:ca/sldl:30", "30", .lower), outline("state:ca", nil, nil),
            outline("state:ca/sldu:30", "30", .upper),
        ]
        for order in [features, features.reversed()] {
            let found = try BoundaryHandler(features: order).matches(lat: 0, lon: 0)
            #expect(found.map(\.district) == ["30", "30"] && found.map(\.chamber) == [.upper, .lower])
        }
    }

    @Test("a person keeps current_role.org_classification as their chamber; a classification that is no chamber is none")
    func personChamber() throws {
        func person(_ classification: String?) throws -> PersonRecord {
            let role = classification.map { #""org_classification": "\#($0)","# } ?? ""
            let json = """
                {"id": "ocd-person/1", "name": "A Member", "updated_at": "2026-11-01T00:00:00Z",
                 "jurisdiction": {"id": "ocd-jurisdiction/country:us/state:ca/government", "name": "California"},
                 "current_role": {"title": "Senator", \(role) "district": "30"}}
                """
            return try PersonRecord(try OpenStates.makeDecoder().decode(OpenStates.Person.self, from: Data(json.utf8)))
        }
        #expect(try person("upper").chamber == .upper)
        #expect(try person("lower").chamber == .lower)
        #expect(try person("legislature").chamber == .legislature)
        #expect(try person("executive").chamber == nil)
        #expect(try person(nil).chamber == nil)
        #expect(try person("upper").fingerprint != person("lower").fingerprint, "a change of chamber is a change")
    }

    @Test("near the real county and state lines (Census outlines, simplified to about a kilometre)")
    func realLines() {
        let north = ["San Luis Obispo County", "California 17", "California 30", "United States CA-19"]
        // The Monterey County line runs along about 35.79° N west of the Salinas valley.
        #expect(names(lat: 35.76, lon: -121.0) == north)
        #expect(names(lat: 35.83, lon: -121.0) == ["California", "United States"])
        // Atascadero: in the county, outside the city; Santa Maria: across the river, Santa Barbara County.
        #expect(names(lat: 35.4894, lon: -120.6707) == north)
        #expect(names(lat: 34.9530, lon: -120.4357) == ["California", "United States"])
        // Lake Tahoe's two shores: South Lake Tahoe in California, Stateline in Nevada.
        #expect(names(lat: 38.9332, lon: -119.9844) == ["California", "United States"])
        #expect(names(lat: 38.9650, lon: -119.9300) == ["United States"])
        // Honolulu, and the open Pacific between it and the mainland.
        #expect(names(lat: 21.3069, lon: -157.8583) == ["United States"])
        #expect(names(lat: 30.0, lon: -140.0).isEmpty)
    }

    @Test("every town of the county, coast included, finds the county and one sample district per chamber")
    func towns() {
        // (name, lat, lon, Senate, Assembly, House): the sample lines are 35.22° N (Assembly),
        // 120.55° W (Senate) and 35.45° N (House).
        let towns: [(String, Double, Double, String, String, String)] = [
            ("Cambria", 35.5641, -121.0807, "17", "30", "CA-19"),
            ("San Simeon", 35.6436, -121.1903, "17", "30", "CA-19"),
            ("Ragged Point", 35.7797, -121.3283, "17", "30", "CA-19"),
            ("Cayucos", 35.4428, -120.8921, "17", "30", "CA-24"),
            ("Paso Robles", 35.6266, -120.6910, "17", "30", "CA-19"),
            ("San Miguel", 35.7525, -120.6963, "17", "30", "CA-19"),
            ("Templeton", 35.5497, -120.7060, "17", "30", "CA-19"),
            ("Atascadero", 35.4894, -120.6707, "17", "30", "CA-19"),
            ("Creston", 35.5186, -120.5243, "21", "30", "CA-19"),
            ("Shandon", 35.6552, -120.3755, "21", "30", "CA-19"),
            ("Morro Bay", 35.3658, -120.8499, "17", "30", "CA-24"),
            ("Los Osos", 35.3111, -120.8324, "17", "30", "CA-24"),
            ("Santa Margarita", 35.3903, -120.6093, "17", "30", "CA-24"),
            ("San Luis Obispo", 35.2828, -120.6596, "17", "30", "CA-24"),
            ("Avila Beach", 35.1800, -120.7319, "17", "37", "CA-24"),
            ("Pismo Beach", 35.1428, -120.6413, "17", "37", "CA-24"),
            ("Grover Beach", 35.1217, -120.6210, "17", "37", "CA-24"),
            ("Oceano", 35.0986, -120.6124, "17", "37", "CA-24"),
            ("Arroyo Grande", 35.1186, -120.5907, "17", "37", "CA-24"),
            ("Nipomo", 35.0428, -120.4760, "21", "37", "CA-24"),
            ("California Valley", 35.3200, -120.0000, "21", "30", "CA-24"),
        ]
        for (town, lat, lon, senate, assembly, house) in towns {
            let found = names(lat: lat, lon: lon).filter { $0 != "San Luis Obispo" }
            let expected = [
                "San Luis Obispo County", "California \(senate)", "California \(assembly)", "United States \(house)",
            ]
            #expect(found == expected, "\(town)")
        }
        let samples = atlas.features.filter { $0.properties.district != nil }
        #expect(samples.count == 6 && samples.allSatisfy { $0.properties.sample == true })
        #expect(atlas.features.filter { $0.properties.district == nil }.allSatisfy { $0.properties.sample == nil })
    }

    @Test(
        "a metre either side of each chamber's sample district line: one district on each side, the other chambers' the same",
        arguments: [
            // (lat, lon) on the line, the step across it (lat, lon), the chamber, the district on each side.
            (35.22, -120.45, 1e-5, 0.0, Civic.Chamber.lower, "state", "30", "37"),
            (35.35, -120.55, 0.0, 1e-5, Civic.Chamber.upper, "state", "21", "17"),
            (35.45, -120.45, 1e-5, 0.0, Civic.Chamber.lower, "federal", "CA-19", "CA-24"),
        ])
    func districtLines(
        _ line: (Double, Double, Double, Double, Civic.Chamber, String, String, String)
    ) {
        let (lat, lon, dLat, dLon, chamber, level, plus, minus) = line
        func seat(_ lat: Double, _ lon: Double) -> [String] {
            atlas.matches(lat: lat, lon: lon)
                .filter { $0.chamber == chamber && $0.jurisdiction.level.rawValue == level }
                .compactMap(\.district)
        }
        func others(_ lat: Double, _ lon: Double) -> [String] {
            atlas.matches(lat: lat, lon: lon)
                .filter { !($0.chamber == chamber && $0.jurisdiction.level.rawValue == level) }
                .map { "\($0.jurisdiction.id) \($0.district ?? "")" }
        }
        #expect(seat(lat + dLat, lon + dLon) == [plus])
        #expect(seat(lat - dLat, lon - dLon) == [minus])
        #expect(others(lat + dLat, lon + dLon) == others(lat - dLat, lon - dLon), "only this chamber's line is here")
        #expect(Set(seat(lat, lon)) == [plus, minus], "on the line itself, both (an edge counts as inside)")
    }

    @Test("on the outlines' own edges: a vertex and an edge count as inside, a hair across as outside")
    func edges() throws {
        let city = try #require(atlas.features.first { $0.id == "place:san_luis_obispo" })
        let ring = city.geometry.coordinates[0][0]
        let polygon = city.geometry.coordinates[0]
        for index in 0..<(ring.count - 1) {
            let (a, b) = (ring[index], ring[index + 1])
            #expect(PointInPolygon.contains(polygon, lon: a[0], lat: a[1]), "vertex \(index)")
            let mid = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2]
            #expect(PointInPolygon.contains(polygon, lon: mid[0], lat: mid[1]), "edge \(index)")
            // 1e-5 degrees (about a metre) to either side of the edge's middle, along its normal.
            let (dx, dy) = (b[0] - a[0], b[1] - a[1])
            let length = (dx * dx + dy * dy).squareRoot()
            let (nx, ny) = (-dy / length * 1e-5, dx / length * 1e-5)
            let left = PointInPolygon.contains(polygon, lon: mid[0] + nx, lat: mid[1] + ny)
            let right = PointInPolygon.contains(polygon, lon: mid[0] - nx, lat: mid[1] - ny)
            #expect(left != right, "edge \(index): one side in, the other out")
        }
        // A hole is outside.
        let square = [[0.0, 0], [4, 0], [4, 4], [0, 4], [0, 0]]
        let hole = [[1.0, 1], [3, 1], [3, 3], [1, 3], [1, 1]]
        #expect(!PointInPolygon.contains([square, hole], lon: 2, lat: 2))
        #expect(PointInPolygon.contains([square, hole], lon: 0.5, lat: 2))
        #expect(PointInPolygon.contains([square, hole], lon: 4, lat: 2))
        #expect(!PointInPolygon.contains([square, hole], lon: 4.000001, lat: 2))
    }
}
