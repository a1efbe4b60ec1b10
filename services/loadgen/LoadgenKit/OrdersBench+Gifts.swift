import Foundation

/// Gift purchases through the gateway at a fixed rate (the target: p99 < 50 ms at 100
/// purchases/s with the sandbox catalogue): the whole path a Gifter purchase takes, gateway,
/// orders asking social `check_gift` over MDP (the item's price and availability, the
/// friendship, the address), the charge, the order's transaction and its events.
extension OrdersBench {
    /// Makes `pairs` pairs of friends (each buyer with a card: registered, signed in, a friend
    /// request sent and accepted) and reads available items of the sandbox catalogue, then
    /// measures `POST /v1/orders` with `kind: gift` (no price: social prices it), each with a new
    /// `Idempotency-Key`, the buyers and items taken in turn.
    public func gifts(pairs: Int, progress: @Sendable (String) -> Void) async throws -> [RunResult] {
        try await GatewayHTTP.with(baseURL: baseURL) { http in
            progress("set-up: \(pairs * 2) accounts, \(pairs) pairs of friends, catalogue items")
            let state = try await AppScenarios(settings: .init()).giftState(http, pairs: pairs)
            let run = UUID().uuidString.prefix(8).lowercased()
            progress("gift purchases at \(Int(rate))/s for \(seconds) s")
            let gifts = try await openLoop(http, name: "POST /v1/orders (gift) at \(Int(rate))/s", expect: 201) {
                Self.giftOrder($0, state: state, run: run)
            }
            return [gifts]
        }
    }

    /// Arrival `index`'s purchase: buyer and item in turn, quantity 1 to 3, a key of its own.
    static func giftOrder(_ index: Int, state: AppScenarios.GiftState, run: some StringProtocol)
        -> (path: String, json: String, headers: [String: String])
    {
        let pair = state.pairs[index % state.pairs.count]
        let item = state.items[(index / state.pairs.count) % state.items.count]
        let body = GiftJourney.orderBody(index: index, item: item, card: pair.card, friendId: pair.friendId)
        let headers = ["Authorization": "Bearer \(pair.token)", "Idempotency-Key": "giftbench-\(run)-\(index)"]
        return ("/v1/orders", body, headers)
    }
}
