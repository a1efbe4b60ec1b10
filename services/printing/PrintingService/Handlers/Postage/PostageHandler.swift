import Contract
import Foundation
import Logging
import PrintingContract
import Store

/// The postage operations: load a new version of the printer's file, show the one in force,
/// and price cards for the orders service.
public struct PostageHandler: Sendable {
    let store: PostageStore
    /// The bytes of `postage.xsd`.
    let schema: [UInt8]
    let clock: any WallClock
    let logger: Logger

    /// Creates the handler.
    public init(store: PostageStore, schema: [UInt8], clock: any WallClock, logger: Logger) {
        self.store = store
        self.schema = schema
        self.clock = clock
        self.logger = logger
    }

    /// Validates and stores `xml` as a new version; a file that does not validate changes nothing.
    public func load(xml: String, source: String) async throws -> Printing.PostageTariff {
        let file = try parse(xml)
        guard let id = try await store.save(file, document: xml, source: source, now: clock.now()) else {
            throw ServiceError(.internal, "the postage file was not stored")
        }
        logger.info(
            "postage file stored",
            metadata: [
                "version": "\(id)", "label": "\(file.label)", "validFrom": "\(file.validFrom)", "by": "\(source)",
            ])
        let activeId = try await store.active(on: today())?.id
        guard let stored = try await store.version(id, activeId: activeId) else {
            throw ServiceError(.internal, "postage version \(id) vanished")
        }
        return stored
    }

    /// `load_postage`: the file a printer uploads, recorded as theirs.
    public func load(_ request: Printing.LoadPostage.Request, printer: Actor) async throws -> Printing.PostageTariff {
        try await load(xml: request.xml, source: "upload \(printer.userId)")
    }

    /// Loads the file at `url` unless the same bytes were stored before (start-up).
    public func bootstrap(from url: URL) async throws {
        let xml: String
        do {
            xml = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw ServiceError(.invalidArgument, "cannot read the postage file \(url.path): \(error)")
        }
        let file = try parse(xml)
        if let id = try await store.save(
            file, document: xml, source: "file \(url.lastPathComponent)", now: clock.now(), skipIfKnown: true)
        {
            logger.info("postage file loaded at start", metadata: ["version": "\(id)", "path": "\(url.path)"])
        }
    }

    /// The version in force today, or `failed_precondition` when none is.
    public func active() async throws -> Printing.PostageTariff {
        guard let tariff = try await store.active(on: today()) else {
            throw ServiceError(
                .failedPrecondition, "no postage tariff is in force today; a printer must upload one",
                details: ["reason": "no_postage_tariff"])
        }
        return tariff
    }

    /// The postage of a card of `size` to each of `countries` under the tariff in force.
    public func rates(_ request: Printing.PostageRates.Request) async throws -> Printing.PostageRates.Reply {
        let size = request.size.uppercased()
        guard PostageFile.sizes.contains(size) else {
            throw ServiceError.invalidArgument(
                "size is one of \(PostageFile.sizes.joined(separator: ", "))", field: "size")
        }
        guard (1...1000).contains(request.countries.count) else {
            throw ServiceError.invalidArgument("ask for 1 to 1000 countries", field: "countries")
        }
        let tariff = try await active()
        let table = PostageTable(zones: tariff.zones, prices: tariff.prices)
        var prices: [Printing.CountryPostage] = []
        for (index, country) in request.countries.enumerated() {
            let code = country.uppercased()
            guard code.count == 2, code.allSatisfy({ $0.isASCII && $0.isLetter }) else {
                throw ServiceError.invalidArgument("'\(country)' is not a country code", field: "countries[\(index)]")
            }
            guard let price = table.postage(size: size, country: code) else {
                throw ServiceError(.internal, "postage version \(tariff.id) has no \(size) price for \(code)")
            }
            prices.append(price)
        }
        return Printing.PostageRates.Reply(
            tariffId: tariff.id, carrier: tariff.carrier, currency: tariff.currency, prices: prices)
    }

    private func parse(_ xml: String) throws(ServiceError) -> PostageFile {
        do {
            return try PostageFileParser.parse(Array(xml.utf8), schema: schema)
        } catch {
            throw error.serviceError
        }
    }

    /// Today in UTC, `YYYY-MM-DD`, by the injected clock.
    func today() -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: clock.now())
        func two(_ value: Int?) -> String { (value ?? 0) < 10 ? "0\(value ?? 0)" : "\(value ?? 0)" }
        return "\(parts.year ?? 1970)-\(two(parts.month))-\(two(parts.day))"
    }
}
