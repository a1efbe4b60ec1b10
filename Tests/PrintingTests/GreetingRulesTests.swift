import Contract
import Foundation
import PrintingContract
import Testing

@testable import PrintingService

/// The greeting catalogue, language negotiation and the nearest-place index, with no I/O but
/// reading the gazetteer file `deploy/scripts/gazetteer.sh` made (GeoNames cities of 15,000+).
@Suite("greetings: catalogue, languages, nearest place")
struct GreetingRulesTests {
    /// The real gazetteer: `GAZETTEER_FILE`, else the repository's `.data/gazetteer/cities15000.tsv`.
    static let gazetteer: Result<PlaceIndex, any Error> = Result {
        let path =
            ProcessInfo.processInfo.environment["GAZETTEER_FILE"]
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".data/gazetteer/cities15000.tsv").path
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ServiceError(.unavailable, "\(path) is missing: run deploy/scripts/gazetteer.sh first")
        }
        return PlaceIndex(try GazetteerFile.parse(String(decoding: data, as: UTF8.self)))
    }

    @Test("at least 60 greetings, at least 10 for each of the six occasions, each in English, Swedish and Afrikaans")
    func catalogueCounts() {
        #expect(GreetingCatalog.entries.count >= 60)
        #expect(Set(GreetingCatalog.entries.map(\.id)).count == GreetingCatalog.entries.count, "ids are unique")
        for occasion in Printing.GreetingOccasion.allCases {
            for language in GreetingLanguage.allCases {
                let templates = GreetingCatalog.templates(occasion, in: language)
                #expect(templates.count == 11, "\(occasion) in \(language)")
                #expect(templates.allSatisfy { !$0.text.isEmpty && $0.occasion == occasion })
                #expect(Set(templates.map(\.text)).count == templates.count, "\(occasion) in \(language): no repeats")
            }
        }
        #expect(GreetingCatalog.templates(nil, in: .sv).count == GreetingCatalog.entries.count)
        for entry in GreetingCatalog.entries {
            #expect(entry.texts.count == 3, "\(entry.id)")
            let placeholders = GreetingLanguage.allCases.map { entry.texts[$0]?.contains("{place}") == true }
            #expect(Set(placeholders).count == 1, "\(entry.id): {place} in every language or in none")
            #expect(entry.texts[.en] != entry.texts[.sv] && entry.texts[.en] != entry.texts[.af], "\(entry.id)")
        }
        #expect(GreetingCatalog.templates(.travel, in: .en).filter(\.usesPlace).count == 6)
        #expect(GreetingCatalog.entries.filter { $0.occasion != .travel }.allSatisfy { !$0.usesPlace })
    }

    @Test("travel greetings are filled with the place; without one, those that name none")
    func travelFilled() {
        let swedish = GreetingCatalog.travel(at: "Lund", in: .sv)
        #expect(swedish.first?.text == "Hälsningar från Lund!")
        #expect(swedish.count == 6 && swedish.allSatisfy { $0.text.contains("Lund") && !$0.text.contains("{place}") })
        #expect(GreetingCatalog.travel(at: "Stellenbosch", in: .af).first?.text == "Groete uit Stellenbosch!")
        #expect(GreetingCatalog.travel(at: "Lund", in: .en).first?.text == "Greetings from Lund!")
        let nowhere = GreetingCatalog.travel(at: nil, in: .en)
        #expect(nowhere.count == 5 && nowhere.allSatisfy { !$0.usesPlace && !$0.text.contains("{") })
    }

    @Test("language: lang first, then Accept-Language by q-value and prefix, else English; a bad lang is a 400")
    func languageChoice() throws {
        func choose(_ lang: String?, _ header: String?) throws(ServiceError) -> GreetingLanguage {
            try GreetingLanguage.choose(lang: lang, acceptLanguage: header)
        }
        #expect(try choose(nil, nil) == .en)
        #expect(try choose("sv", "af") == .sv)
        #expect(try choose("AF", nil) == .af)
        #expect(try choose(nil, "sv-SE,sv;q=0.9,en;q=0.5") == .sv)
        #expect(try choose(nil, "de-DE, af;q=0.8, en;q=0.7") == .af)
        #expect(try choose(nil, "en;q=0.2, af;q=0.9") == .af)
        #expect(try choose(nil, "en;q=0.5, sv;q=0.5") == .en, "equal q: the earlier")
        #expect(try choose(nil, "af-ZA;q=0.3,sv-FI;q=0.31") == .sv)
        #expect(try choose(nil, "de, fr") == .en, "no match: English")
        #expect(try choose(nil, "af;q=0, de") == .en, "q=0 is 'not acceptable'")
        #expect(try choose(nil, "*;q=0.5, sv;q=0.4") == .en, "* is the fallback")
        #expect(try choose(nil, "sv;q=2, af;q=abc, en;q=0.1") == .en, "malformed entries are skipped")
        #expect(try choose(nil, "  SV ; q=1.000 ") == .sv)
        #expect(try choose(nil, ",,;;") == .en)
        #expect(throws: ServiceError.self) { try choose("de", "sv") }
        do {
            _ = try choose("xx", nil)
        } catch {
            #expect(error.details?["field"] == .string("lang"))
        }
    }

    @Test("an unknown occasion is a 400 naming it")
    func unknownOccasion() {
        do {
            _ = try Printing.GreetingOccasion.parse("xmas")
            Issue.record("xmas was accepted")
        } catch {
            #expect(error.code == .invalidArgument && error.message.contains("xmas"))
            #expect(error.details?["occasion"] == .string("xmas"))
        }
    }

    @Test("nearest place of the GeoNames gazetteer: Lund, Stellenbosch, Pretoria, Malmö, Cape Town; none mid-ocean")
    func knownPlaces() throws {
        let index = try Self.gazetteer.get()
        #expect(index.places.count > 30_000)
        let known: [(Double, Double, String, String)] = [
            (55.7047, 13.1910, "Lund", "SE"),  // Lund cathedral
            (-33.9346, 18.8600, "Stellenbosch", "ZA"),  // the Braak
            (-25.7461, 28.1881, "Pretoria", "ZA"),  // Church Square
            (55.6050, 13.0038, "Malmö", "SE"),
            (-33.9249, 18.4241, "Cape Town", "ZA"),
        ]
        for (lat, lon, name, country) in known {
            let found = try #require(index.nearest(latitude: lat, longitude: lon, maxDistance: 100_000))
            #expect(found.place.name == name && found.place.countryCode == country, "\(lat),\(lon): \(found.place)")
            #expect(found.meters < 5_000, "\(name): \(found.meters) m")
        }
        #expect(index.nearest(latitude: 0, longitude: -30, maxDistance: 100_000) == nil, "mid-Atlantic")
        #expect(index.nearest(latitude: 89.9, longitude: 0, maxDistance: 100_000) == nil, "North Pole")
    }

    @Test("the grid answers what a scan of every place answers, at 2,000 seeded positions and across ±180°")
    func gridMatchesScan() throws {
        let index = try Self.gazetteer.get()
        var state: UInt64 = 20_261_125
        func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        // Near real places (where answers are close calls) and anywhere at all.
        var points: [(Double, Double)] = (0..<1_000).map { _ in
            let place = index.places[Int(next() * Double(index.places.count))]
            return (max(-90, min(90, place.latitude + (next() - 0.5))), place.longitude + (next() - 0.5))
        }
        points += (0..<1_000).map { _ in (next() * 180 - 90, next() * 360 - 180) }
        points += [(-17.0, 179.9), (-17.0, -179.9), (65.0, -179.99), (-89.9, 10), (71.0, 179.5)]
        for (lat, rawLon) in points {
            let lon = rawLon > 180 ? rawLon - 360 : (rawLon < -180 ? rawLon + 360 : rawLon)
            let limit = 100_000.0
            var best: (PlaceIndex.Place, Double)?
            for place in index.places {
                let meters = PlaceIndex.distance(lat, lon, place.latitude, place.longitude)
                guard meters <= limit else { continue }
                if best == nil || meters < best!.1 || (meters == best!.1 && place.geonameId < best!.0.geonameId) {
                    best = (place, meters)
                }
            }
            let found = index.nearest(latitude: lat, longitude: lon, maxDistance: limit)
            #expect(found?.place.geonameId == best?.0.geonameId, "\(lat),\(lon)")
        }
    }

    @Test("a gazetteer file without its header or with a broken line is refused naming the line")
    func brokenFiles() {
        #expect(
            throws: GazetteerFile.Problem(
                line: 1, message: "not a gazetteer file (it does not start with '# backplane-gazetteer 1 ')")
        ) {
            try GazetteerFile.parse("2693678\tLund\tSE\t55.70584\t13.19321\t87244\n")
        }
        do {
            _ = try GazetteerFile.parse(
                "# backplane-gazetteer 1 test\n2693678\tLund\tSE\t55.70584\t13.19321\t87244\n1\tX\tSE\t95\t0\t1\n")
            Issue.record("a latitude of 95 was accepted")
        } catch {
            #expect(error.line == 3)
        }
        #expect((try? GazetteerFile.parse("# backplane-gazetteer 1 test\n")) == nil, "no place at all")
        let places = try? GazetteerFile.parse(
            "# backplane-gazetteer 1 test\n2693678\tLund\tSE\t55.70584\t13.19321\t87244\n")
        #expect(places?.first?.name == "Lund" && places?.first?.population == 87_244)
    }
}
