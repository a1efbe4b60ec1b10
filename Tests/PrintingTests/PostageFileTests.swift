import Contract
import Foundation
import Testing

@testable import PrintingService

/// The postage file: the shipped sample, the price rule, and refusals that name line and element.
@Suite("printing: postage file")
struct PostageFileTests {
    func parse(_ text: String) throws(PostageFileParser.Rejection) -> PostageFile {
        try PostageFileParser.parse(Array(text.utf8), schema: PostageSamples.schema)
    }

    /// The problems `text` is refused with (none if it parses).
    func problems(_ text: String) -> [PostageProblem] {
        do {
            _ = try parse(text)
            return []
        } catch {
            return error.problems
        }
    }

    @Test("the shipped sample validates: carrier, currency, zones, stamp size read from the PNG")
    func sample() throws {
        let file = try parse(PostageSamples.sample)
        #expect(file.label == "2026-demo-1")
        #expect(file.currency == "EUR")
        #expect(file.origin == "DE")
        #expect(file.validFrom == "2026-01-01")
        #expect(file.validTo == nil)
        #expect(file.zones.map(\.id) == ["domestic", "europe", "world"])
        #expect(file.zones.filter(\.isDefault).map(\.id) == ["world"])
        #expect(file.stamp.mediaType == "image/png")
        #expect(file.stamp.width == 60 && file.stamp.height == 72)
    }

    @Test("a country's own price wins over its zone; unknown countries fall to the catch-all zone")
    func priceRule() throws {
        let table = try parse(PostageSamples.sample).table
        #expect(table.postage(size: "A6", country: "DE") == .init(country: "DE", zone: "domestic", amount: 95))
        #expect(table.postage(size: "A4", country: "SE") == .init(country: "SE", zone: "europe", amount: 370))
        #expect(table.postage(size: "A6", country: "CH") == .init(country: "CH", zone: "country:CH", amount: 125))
        #expect(table.postage(size: "A5", country: "CH") == .init(country: "CH", zone: "europe", amount: 110))
        #expect(table.postage(size: "A6", country: "US") == .init(country: "US", zone: "world", amount: 165))
        #expect(table.postage(size: "A7", country: "US") == nil)
    }

    @Test("XML that is not well-formed is refused with the line of the fault")
    func malformed() {
        let text = PostageSamples.sample(replacing: "<carrier>Deutsche Post (demo tariff)</carrier>", with: "<carrier>")
        let found = problems(text)
        #expect(found.count == 1)
        #expect(found.first?.line ?? 0 >= PostageSamples.line(of: "<carrier>", in: text))
        #expect(found.first?.message.isEmpty == false)
    }

    @Test("a schema violation names its line, the element and the bad value")
    func schemaViolation() throws {
        let text = PostageSamples.sample(
            replacing: #"<price size="A4" zone="world" amount="370"/>"#,
            with: #"<price size="A7" zone="world" amount="370"/>"#)
        let found = problems(text)
        let first = try #require(found.first)
        #expect(first.line == PostageSamples.line(of: #"size="A7""#, in: text))
        #expect(first.element == "price")
        #expect(first.message.contains("A7"))
        let error = PostageProblem.error(found)
        #expect(error.code == .invalidArgument)
        #expect(error.details?["element"] == .string("price"))
        #expect(error.details?["line"] == .number(Double(first.line)))
    }

    @Test("a price for a zone the file does not define is refused at that price")
    func unknownZone() throws {
        let text = PostageSamples.sample(
            replacing: #"<price size="A6" country="CH" amount="125"/>"#,
            with: #"<price size="A6" zone="mars" amount="125"/>"#)
        let found = problems(text)
        let first = try #require(found.first)
        #expect(first.element == "price", "\(found)")
        #expect(first.line == PostageSamples.line(of: "mars", in: text), "\(found)")
    }

    @Test("a zone without a price for every size is refused at the zone")
    func missingSize() throws {
        let text = PostageSamples.sample(replacing: #"<price size="A4" zone="europe" amount="370"/>"#, with: "")
        let found = problems(text)
        #expect(found.count == 1)
        let first = try #require(found.first)
        #expect(first.element == "zone")
        #expect(first.line == PostageSamples.line(of: #"<zone id="europe">"#, in: text))
        #expect(first.message.contains("europe") && first.message.contains("A4"))
    }

    @Test("exactly one catch-all zone, without countries; a zone with none is refused")
    func zoneRules() {
        let twoDefaults = PostageSamples.sample(
            replacing: #"<zone id="domestic">"#, with: #"<zone id="domestic" default="true">"#)
        #expect(problems(twoDefaults).map(\.element) == ["zone", "zone"])
        #expect(problems(twoDefaults).contains { $0.message.contains("second default") })
        let noDefault = PostageSamples.sample(
            replacing: #"<zone id="world" default="true"/>"#, with: #"<zone id="world"/>"#)
        let messages = problems(noDefault).map(\.message)
        #expect(messages.contains { $0.contains("no zone has default") })
        #expect(messages.contains { $0.contains("lists no country") })
    }

    @Test("a country in two zones, and a price naming zone and country, are refused")
    func ambiguity() {
        let twice = PostageSamples.sample(
            replacing: "<country>DE</country>", with: "<country>DE</country><country>SE</country>")
        #expect(problems(twice).first?.element == "country")
        let both = PostageSamples.sample(
            replacing: #"<price size="A6" zone="world" amount="165"/>"#,
            with: #"<price size="A6" zone="world" country="US" amount="165"/>"#)
        #expect(problems(both).contains { $0.element == "price" && $0.message.contains("both") }, "\(problems(both))")
    }

    @Test("a stamp whose bytes are not the declared image, and dates out of order, are refused")
    func stampAndDates() {
        let jpegClaim = PostageSamples.sample(
            replacing: #"<stamp mediaType="image/png">"#, with: #"<stamp mediaType="image/jpeg">"#)
        let stamp = problems(jpegClaim)
        #expect(stamp.map(\.element) == ["stamp"])
        #expect(stamp.first?.line == PostageSamples.line(of: "<stamp", in: jpegClaim))
        let dates = PostageSamples.sample(label: "dates", from: "2026-05-01", to: "2026-04-30")
        #expect(problems(dates).map(\.element) == ["validTo"])
        let notDate = PostageSamples.sample(replacing: "2026-01-01", with: "2026-13-01")
        #expect(problems(notDate).first?.element == "validFrom")
    }

    @Test("an empty body and a document of another kind are refused")
    func otherDocuments() {
        #expect(problems("").first?.message == "the file is empty")
        let ecb = #"<?xml version="1.0"?><gesmes:Envelope xmlns:gesmes="urn:x"/>"#
        #expect(problems(ecb).first?.line == 1)
    }
}
