import Foundation
import Logging
import PostgresNIO
import Store

/// One line of the reconciliation: what was counted, how many, and whether a count above zero is
/// a failure (a loss, a duplicate, stuck work) or only information.
struct Tally: Sendable, Equatable, CustomStringConvertible {
    let name: String
    let count: Int
    let bad: Bool

    var failed: Bool { bad && count > 0 }

    /// The report's line: `!!` in front of a failure.
    var description: String {
        let padded = name.count < 72 ? name + String(repeating: " ", count: 72 - name.count) : name
        let number = String(count)
        return "\(failed ? "!!" : "  ") \(padded) \(String(repeating: " ", count: max(0, 8 - number.count)))\(number)"
    }
}

/// One PaymentIntent the Stripe stand-in records as having held money (`GET .../_standin/charges`).
struct StripeCharge: Sendable, Codable, Equatable {
    var intent: String?
    var backplaneKey: String?
    var status: String?
    var authorized: Int?
    var captured: Int?
    var refunded: Int?

    enum CodingKeys: String, CodingKey {
        case intent, status, authorized, captured, refunded
        case backplaneKey = "backplane_key"
    }
}

/// What the load generator and the stand-ins were told, which the database must account for.
struct Acknowledged: Sendable {
    /// The id of every order the system answered 201, one entry per answer (a repeat is a check).
    var orders: [String] = []
    /// The UUID of every drink acknowledged; nil: the drinks are not checked.
    var drinks: [String]?
    /// How many copies of each notification id the SMTP sink holds; nil: the sink is not checked.
    var mails: [String: Int]?
    /// The Stripe stand-in's charges; nil: our ledger is not compared with Stripe's.
    var stripeCharges: [StripeCharge]?
    /// The number of bills the Open States feed serves; nil: not compared.
    var civicFeedBills: Int?
    /// Work older than this (an order pending payment, an event unhandled, a job queued) is stuck.
    var stuckSeconds: Int = 60
}

/// The reconciliation: the checks of each schema the database has, in one session (they fill
/// temporary tables with what was acknowledged). The queries are the fault run's definition of
/// "nothing lost, nothing charged twice, nothing stuck".
enum Reconciler {
    static func run(_ input: Acknowledged, client: PostgresClient, logger: Logger) async throws -> [Tally] {
        try await client.withConnection { connection in
            var session = Session(connection: connection, logger: logger, stuck: input.stuckSeconds)
            return try await session.run(input)
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }
}

/// One run of the checks on one connection: the temporary tables of what was acknowledged live in
/// its session.
struct Session {
    let connection: PostgresConnection
    let logger: Logger
    let stuck: Int
    var tallies: [Tally] = []

    init(connection: PostgresConnection, logger: Logger, stuck: Int) {
        self.connection = connection
        self.logger = logger
        self.stuck = stuck
    }

    func execute(_ sql: String) async throws {
        try await connection.fetch(PostgresQuery(unsafeSQL: sql), logger: logger)
    }

    /// Runs queries of rows (name, count, bad) and appends their tallies.
    mutating func tally(_ queries: String...) async throws {
        for sql in queries {
            for row in try await connection.fetch(PostgresQuery(unsafeSQL: sql), logger: logger).rows {
                let (name, count, bad) = try row.decode((String, Int, Int).self)
                tallies.append(Tally(name: name, count: count, bad: bad == 1))
            }
        }
    }

    func hasTable(_ name: String) async throws -> Bool {
        let rows = try await connection.fetch("SELECT to_regclass(\(name)::text) IS NOT NULL", logger: logger).rows
        return try rows.first?.decode(Bool.self) ?? false
    }

    mutating func run(_ input: Acknowledged) async throws -> [Tally] {
        try await execute("DROP TABLE IF EXISTS pg_temp.acked, pg_temp.drinks_acked, pg_temp.mails, pg_temp.stripe_charges, pg_temp.ours")
        try await execute("CREATE TEMP TABLE acked (id uuid)")
        try await connection.fetch("INSERT INTO acked SELECT unnest(\(input.orders)::text[])::uuid", logger: logger)
        try await orders()
        if try await hasTable("social.catalog_items") { try await gifts() }
        if try await hasTable("printing.print_jobs") { try await printing() }
        if try await hasTable("notify.notifications") { try await notify(mails: input.mails) }
        if let drinks = input.drinks {
            guard try await hasTable("hydration.drinks") else {
                throw Reconciler.Failure(description: "ACKNOWLEDGED_DRINKS is set but the database has no hydration.drinks")
            }
            try await self.drinks(drinks)
        }
        if try await hasTable("civic.bills") { try await civic(feedBills: input.civicFeedBills) }
        if let charges = input.stripeCharges { try await stripe(charges) }
        try await execute("DROP TABLE IF EXISTS pg_temp.acked, pg_temp.drinks_acked, pg_temp.mails, pg_temp.stripe_charges, pg_temp.ours")
        return tallies
    }
}
