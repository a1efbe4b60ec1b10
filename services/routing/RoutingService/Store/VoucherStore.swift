import Contract
import Foundation
import Logging
import PostgresNIO
import RoutingContract
import Store

/// The reward vouchers completing a goal earns (`routing.vouchers`): issued once per goal and
/// user, redeemed once.
public struct VoucherStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    static let voucherColumns = "code, goal_id, goal_title, reward, issued_at, redeemed_at"

    /// The voucher with `code` (canonical form), if any.
    public func voucher(code: String) async throws -> Routing.Voucher? {
        let rows = try await client.fetch(
            "SELECT \(unescaped: Self.voucherColumns) FROM routing.vouchers WHERE code = \(code)", logger: logger)
        return try await Self.vouchers(rows).first
    }

    /// The user's vouchers for the goals of `week`.
    public func vouchers(of user: UUID, week: CampusWeek) async throws -> [Routing.Voucher] {
        let rows = try await client.fetch(
            """
            SELECT \(unescaped: Self.voucherColumns) FROM routing.vouchers
            WHERE user_id = \(user) AND goal_id IN
              (SELECT id FROM routing.goals WHERE week_start = \(week.start)::date)
            """, logger: logger)
        return try await Self.vouchers(rows)
    }

    /// Issues the voucher `code` for `goal` to `user`; false when the user holds one for the
    /// goal already (even issued by a concurrent transaction), which is then left as it is.
    public func issue(code: String, goal: Routing.Goal, goalId: UUID, user: UUID, now: Date, in tx: Transaction)
        async throws -> Bool
    {
        let rows = try await tx.connection.fetch(
            """
            INSERT INTO routing.vouchers (code, goal_id, user_id, goal_title, reward, issued_at)
            VALUES (\(code), \(goalId), \(user), \(goal.title), \(goal.reward), \(now))
            ON CONFLICT (goal_id, user_id) DO NOTHING RETURNING code
            """, logger: tx.logger)
        var issued = false
        for try await _ in rows { issued = true }
        return issued
    }

    /// What redeeming a code came to.
    public enum Redemption: Sendable, Equatable {
        /// This call redeemed it.
        case redeemed(Routing.Voucher)
        /// It had been redeemed before (by this or another rewards manager).
        case alreadyRedeemed(Routing.Voucher)
        /// No such code.
        case unknown
    }

    /// Redeems `code` for `manager` at `now`. A single conditional UPDATE: of any number of
    /// concurrent calls exactly one finds the voucher unredeemed (the others wait on its row lock,
    /// then see it redeemed).
    public func redeem(code: String, by manager: String, now: Date) async throws -> Redemption {
        let rows = try await client.fetch(
            """
            UPDATE routing.vouchers SET redeemed_at = \(now), redeemed_by = \(manager)
            WHERE code = \(code) AND redeemed_at IS NULL
            RETURNING \(unescaped: Self.voucherColumns)
            """, logger: logger)
        if let voucher = try await Self.vouchers(rows).first { return .redeemed(voucher) }
        guard let voucher = try await voucher(code: code) else { return .unknown }
        return .alreadyRedeemed(voucher)
    }

    static func vouchers(_ rows: FetchedRows) async throws -> [Routing.Voucher] {
        var vouchers: [Routing.Voucher] = []
        for try await (code, goalId, goal, reward, issuedAt, redeemedAt) in rows.decode(
            (String, UUID, String, String, Date, Date?).self)
        {
            vouchers.append(
                Routing.Voucher(
                    code: code, goalId: goalId.uuidString.lowercased(), goal: goal, reward: reward, issuedAt: issuedAt,
                    redeemedAt: redeemedAt))
        }
        return vouchers
    }
}
