import Contract
import Foundation
import RoutingContract
import ServiceKit
import Store

/// Reward vouchers at the counter: a rewards manager checks a code, then redeems it once.
public struct VoucherHandler: Sendable {
    let vouchers: VoucherStore
    let clock: any WallClock

    public init(vouchers: VoucherStore, clock: any WallClock) {
        self.vouchers = vouchers
        self.clock = clock
    }

    /// `verify_voucher` (rewards manager).
    func verify(_ request: Routing.VerifyVoucher.Request, _ context: OperationContext) async throws
        -> Routing.Voucher
    {
        _ = try context.requireRole(.rewardsManager)
        guard let voucher = try await vouchers.voucher(code: try GoalRules.voucherCode(request.code)) else {
            throw ServiceError.notFound("no such voucher")
        }
        return voucher
    }

    /// `redeem_voucher` (rewards manager): a second redemption is a `conflict` naming when.
    func redeem(_ request: Routing.RedeemVoucher.Request, _ context: OperationContext) async throws
        -> Routing.Voucher
    {
        let manager = try context.requireRole(.rewardsManager)
        switch try await vouchers.redeem(
            code: try GoalRules.voucherCode(request.code), by: manager.userId, now: clock.now())
        {
        case .redeemed(let voucher):
            return voucher
        case .alreadyRedeemed(let voucher):
            throw ServiceError(
                .conflict, "this voucher was already redeemed",
                details: [
                    "reason": "already_redeemed",
                    "redeemedAt": .string(voucher.redeemedAt?.formatted(.iso8601) ?? ""),
                ])
        case .unknown:
            throw ServiceError.notFound("no such voucher")
        }
    }
}
