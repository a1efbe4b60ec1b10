import Contract
import Foundation
import Testing

@testable import PrintingService

/// Versions of the postage file in PostgreSQL: all kept, the one in force chosen by date.
///
/// The versions here are dated in the 2090s with a `validTo`, so that the shipped sample other
/// suites load (valid from 2026, open-ended, loaded once per database) never wins in their window.
@Suite("printing: postage versions in PostgreSQL", .serialized)
struct PostageStoreTests {
    @Test("every version is kept; the newest one covering today is in force, by the injected clock")
    func versions() async throws {
        try await PrintingFixture.with(at: PrintingFixture.noon("2091-03-01")) { world in
            let tag = UUID().uuidString.prefix(8)
            try await world.desk.bootstrap(from: PrintingService.samplePostageURL())
            let spring = try await world.desk.load(
                xml: PostageSamples.sample(label: "spring-\(tag)", from: "2091-01-01", to: "2091-12-31"),
                source: "test")
            #expect(spring.active)
            #expect(spring.label == "spring-\(tag)")
            let summer = try await world.desk.load(
                xml: PostageSamples.sample(label: "summer-\(tag)", from: "2091-06-01", to: "2091-12-31"),
                source: "test")
            #expect(!summer.active, "valid only from June")
            #expect(try await world.desk.active().id == spring.id)
            world.clock.set(PrintingFixture.noon("2091-06-01"))
            #expect(try await world.desk.active().id == summer.id)
            #expect(try await world.versions(label: "spring-\(tag)") == 1)
            #expect(try await world.versions(label: "summer-\(tag)") == 1)
            #expect(try await world.store.count() >= 2)
            #expect(try await world.store.stamp(summer.id)?.bytes.prefix(4) == [0x89, 0x50, 0x4E, 0x47])
        }
    }

    @Test("a refused file stores nothing; the same file at start is stored once")
    func refusalAndBootstrap() async throws {
        try await PrintingFixture.with(at: PrintingFixture.noon("2092-01-02")) { world in
            try await world.desk.bootstrap(from: PrintingService.samplePostageURL())
            let label = "refused-\(UUID().uuidString.prefix(8))"
            await #expect {
                _ = try await world.desk.load(
                    xml: PostageSamples.sample(label: label, from: "2092-01-01").replacingOccurrences(
                        of: #"amount="95""#, with: #"amount="-95""#),
                    source: "test")
            } throws: { error in
                (error as? ServiceError)?.code == .invalidArgument
                    && (error as? ServiceError)?.details?["element"] == .string("price")
            }
            #expect(try await world.versions(label: label) == 0)
            try await world.desk.bootstrap(from: PrintingService.samplePostageURL())
            #expect(try await world.versions(document: PostageSamples.sample) == 1)
        }
    }

    @Test("rates: the tariff in force prices each country; nothing in force is a 422")
    func rates() async throws {
        try await PrintingFixture.with(at: PrintingFixture.noon("2093-02-01")) { world in
            let tag = UUID().uuidString.prefix(8)
            try await world.desk.bootstrap(from: PrintingService.samplePostageURL())
            let loaded = try await world.desk.load(
                xml: PostageSamples.sample(label: "rates-\(tag)", from: "2093-01-01", to: "2093-01-31")
                    .replacingOccurrences(
                        of: #"<price size="A6" zone="world" amount="165"/>"#,
                        with: #"<price size="A6" zone="world" amount="199"/>"#),
                source: "test")
            #expect(!loaded.active, "it ended in January")
            world.clock.set(PrintingFixture.noon("2093-01-15"))
            let reply = try await world.desk.rates(.init(size: "a6", countries: ["DE", "CH", "US", "se"]))
            #expect(reply.tariffId == loaded.id)
            #expect(reply.currency == "EUR")
            #expect(reply.prices.map(\.amount) == [95, 125, 199, 110])
            await #expect {
                _ = try await world.desk.rates(.init(size: "A7", countries: ["DE"]))
            } throws: { ($0 as? ServiceError)?.details?["field"] == .string("size") }
            world.clock.set(PrintingFixture.noon("1999-01-01"))
            await #expect {
                _ = try await world.desk.active()
            } throws: { ($0 as? ServiceError)?.code == .failedPrecondition }
        }
    }
}
