import Contract
import Foundation
import PostgresNIO
import RoutingContract
import Store

extension GoalBook {
    static let voucherColumns = "code, goal_id, goal_title, reward, issued_at, redeemed_at"

    /// The voucher with `code` (canonical form), if any.
    public func voucher(code: String) async throws -> Routing.Voucher? {
        let rows = try await client.fetch(
            "SELECT \(unescaped: Self.voucherColumns) FROM routing.vouchers WHERE code = \(code)", logger: logger)
        return try await Self.vouchers(rows).first
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
