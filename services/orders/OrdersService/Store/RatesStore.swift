import Contract
import Foundation
import Logging
import PostgresNIO
import ServiceKit

/// Exchange-rate sets in `orders.rate_sets`. The newest set is the one in force; a set that does
/// not parse is never stored, so the last good rates stay.
public struct RatesStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// A store on `client`.
    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// A stored rate set with its id.
    public struct Stored: Sendable, Hashable {
        public let id: Int64
        public let rates: ExchangeRates
    }

    /// Stores `rates` as the newest set.
    @discardableResult
    public func save(_ rates: ExchangeRates, source: String, now: Date) async throws -> Stored {
        let json = String(decoding: try Wire.makeEncoder().encode(rates.rates.mapValues(\.description)), as: UTF8.self)
        let rows = try await client.fetch(
            """
            INSERT INTO orders.rate_sets (rate_date, rates, source, loaded_at)
            VALUES (\(rates.date)::date, \(json)::jsonb, \(source), \(now)) RETURNING id
            """, logger: logger)
        for try await id in rows.decode(Int64.self) { return Stored(id: id, rates: rates) }
        throw ServiceError(.internal, "storing a rate set returned no id")
    }

    /// The newest set, or nil before any was loaded.
    public func latest() async throws -> Stored? {
        try await first(
            "SELECT id, rate_date::text, rates::text FROM orders.rate_sets ORDER BY id DESC LIMIT 1")
    }

    /// The set with `id`.
    public func set(id: Int64) async throws -> Stored? {
        try await first("SELECT id, rate_date::text, rates::text FROM orders.rate_sets WHERE id = \(id)")
    }

    /// The newest set, or `unavailable` when none was ever loaded.
    public func current() async throws -> Stored {
        guard let stored = try await latest() else {
            throw ServiceError(.unavailable, "no exchange rates are loaded yet")
        }
        return stored
    }

    private func first(_ query: PostgresQuery) async throws -> Stored? {
        let rows = try await client.fetch(query, logger: logger)
        for try await (id, date, json) in rows.decode((Int64, String, String).self) {
            let texts = try Wire.makeDecoder().decode([String: String].self, from: Data(json.utf8))
            var rates: [String: ExchangeRate] = [:]
            for (code, text) in texts {
                guard let rate = ExchangeRate(text) else {
                    throw ServiceError(.internal, "stored rate of \(code) is unreadable: \(text)")
                }
                rates[code] = rate
            }
            return Stored(id: id, rates: ExchangeRates(date: date, rates: rates))
        }
        return nil
    }

    /// At start: stores the rates of `file` (the operator's `CURRENCY_RATES_PATH`, or the shipped
    /// sample) when none are stored yet, or when the file is from a later day than the newest
    /// set. A file that does not parse is logged and skipped.
    public func bootstrap(from file: URL, source: String, now: Date) async throws {
        let rates: ExchangeRates
        do {
            rates = try ECBRatesParser.parse(try Data(contentsOf: file))
        } catch {
            logger.error(
                "currency rates file skipped",
                metadata: ["path": "\(file.path)", "error": "\(SafeErrorDescription.of(error))"])
            return
        }
        if let newest = try await latest(), newest.rates.date >= rates.date { return }
        try await save(rates, source: source, now: now)
        logger.info("currency rates loaded", metadata: ["rateDate": "\(rates.date)", "source": "\(source)"])
    }
}
