import Foundation
import NIOHTTP1

/// Gifter's people and gifts (`gifter` and `mixed` with `--gift-rate`): pairs of friends made
/// through friend requests at set-up, then at a fixed rate gift journeys (``GiftJourney``):
/// directory searches, a catalogue search, friend requests accepted and friendships removed
/// between the pairs, a favourite on the friend's wish list, the buyer reading it, and a gift for
/// the friend, charged the catalogue's price. A gift without an answer is sent again with the
/// same `Idempotency-Key`, as the app does; its id goes to the acknowledged file when the system
/// answered 201, so the fault run counts gifts with the other orders.
extension AppScenarios {
    /// A buyer (signed in, with a card) and the friend they buy for.
    struct GiftPair: Sendable {
        let token: String
        let card: String
        let friendId: String
        /// The friend's access token and username (an e-mail address, found in the directory
        /// only when typed in full).
        var friendToken = ""
        var friendEmail = ""
        var buyerId = ""
    }

    struct GiftState: Sendable {
        let pairs: [GiftPair]
        let items: [String]
    }

    /// Signs an account in: its access token and user id.
    func signIn(_ http: GatewayHTTP, _ name: String) async throws -> (token: String, userId: String) {
        let credentials = #"{"username": "\#(name)", "password": "\#(Self.password)"}"#
        let login = try await Self.setup(http, "/v1/auth/login", credentials)
        guard let token = jsonField("accessToken", in: login.body) else {
            throw BenchError("login \(name): HTTP \(login.status) \(login.body)")
        }
        let me = try await http.get("/v1/me", headers: ["Authorization": "Bearer \(token)"])
        guard let id = jsonField("userId", in: me.body) else { throw BenchError("GET /v1/me: HTTP \(me.status)") }
        return (token, id)
    }

    /// Registers 2 × `pairs` accounts, makes each buyer friends with the next account (a friend
    /// request, accepted), and reads some available catalogue items.
    func giftState(_ http: GatewayHTTP, pairs: Int) async throws -> GiftState {
        let accounts = try await register(http, count: pairs * 2, prefix: "gift", card: true)
        let made = try await withThrowingTaskGroup(of: (Int, GiftPair).self) { group in
            for index in 0..<pairs {
                group.addTask {
                    // Each account signs in from the address it registered from (the gateway
                    // limits logins per address).
                    let buyer = try await SimulatedClient.acting(as: 2 * index) {
                        try await signIn(http, accounts[2 * index].name)
                    }
                    let friend = try await SimulatedClient.acting(as: 2 * index + 1) {
                        try await signIn(http, accounts[2 * index + 1].name)
                    }
                    // Social learns of new accounts from auth's events: until then, 404.
                    let deadline = ContinuousClock.now + .seconds(30)
                    var asked = try await http.post(
                        "/v1/me/friend-requests", #"{"userId": "\#(friend.userId)"}"#,
                        headers: ["Authorization": "Bearer \(buyer.token)"])
                    while asked.status != 200, ContinuousClock.now < deadline {
                        try await Task.sleep(for: .milliseconds(200))
                        asked = try await http.post(
                            "/v1/me/friend-requests", #"{"userId": "\#(friend.userId)"}"#,
                            headers: ["Authorization": "Bearer \(buyer.token)"])
                    }
                    let accepted = try await Self.setup(
                        http, "/v1/me/friend-requests/\(buyer.userId)/accept", "{}",
                        headers: ["Authorization": "Bearer \(friend.token)"])
                    guard asked.status == 200, accepted.status == 200 else {
                        throw BenchError("friend request: HTTP \(asked.status), accept: HTTP \(accepted.status)")
                    }
                    return (
                        index,
                        GiftPair(
                            token: buyer.token, card: accounts[2 * index].card ?? "", friendId: friend.userId,
                            friendToken: friend.token, friendEmail: accounts[2 * index + 1].name, buyerId: buyer.userId)
                    )
                }
            }
            var ordered = [GiftPair?](repeating: nil, count: pairs)
            for try await (index, pair) in group { ordered[index] = pair }
            return ordered.compactMap { $0 }
        }
        guard let token = made.first?.token else { throw BenchError("no gift pairs") }
        let found = try await http.get(
            "/v1/catalog/items?category=kitchen&limit=100", headers: ["Authorization": "Bearer \(token)"])
        let items = (jsonObject(found.body)?["items"] as? [[String: Any]] ?? [])
            .filter { $0["available"] as? Bool == true }.compactMap { $0["id"] as? String }
        guard !items.isEmpty else { throw BenchError("GET /v1/catalog/items: HTTP \(found.status), no items") }
        return GiftState(pairs: made, items: items)
    }

    static let giftSearches = ["wireless headphnes", "teapot", "chess set", "yoga mat", "candle", "guitar"]

    func gifts(_ http: GatewayHTTP, state: GiftState, acknowledged: AcknowledgedOrders?, tally: Tally)
        -> SteadyArrivals
    {
        let run = UUID().uuidString.prefix(8).lowercased()
        return SteadyArrivals(rate: settings.giftRate) { index in
            { due in
                await SimulatedClient.acting(as: index % state.pairs.count) {
                    await giftJourney(
                        http, index: index, due: due, state: state, run: run, acknowledged: acknowledged, tally: tally)
                }
            }
        }
    }

    /// Journey `index` (see ``GiftJourney``), each step recorded with its latency from the end of
    /// the one before (the first from when the journey was due); a step answered otherwise than
    /// expected ends the journey.
    func giftJourney(
        _ http: GatewayHTTP, index: Int, due: ContinuousClock.Instant, state: GiftState, run: String,
        acknowledged: AcknowledgedOrders?, tally: Tally
    ) async {
        let journey = GiftJourney(index: index, pairs: state.pairs.count)
        let pair = state.pairs[journey.pair]
        let buyer = ["Authorization": "Bearer \(pair.token)"]
        let item = state.items[index % state.items.count]
        var stepStart = due
        func step(_ kind: String, _ status: Int, expected: Set<Int>) -> Bool {
            tally.record(kind, status: status, latency: .now - stepStart, expected: expected)
            stepStart = .now
            return expected.contains(status)
        }
        for action in journey.steps {
            switch action {
            case .directorySearch(let byEmail):
                let q =
                    (byEmail ? pair.friendEmail : GiftJourney.namePrefix(round: journey.round))
                    .addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                let found = try? await http.get("/v1/users?q=\(q)&limit=20", headers: buyer)
                guard step("gifter directory search", found?.status ?? 0, expected: [200]) else { return }
            case .catalogueSearch:
                let words =
                    Self.giftSearches[index % Self.giftSearches.count]
                    .addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                let search = try? await http.get("/v1/catalog/items?q=\(words)&limit=20", headers: buyer)
                guard step("gifter catalogue search", search?.status ?? 0, expected: [200]) else { return }
            case .befriend(let other):
                let them = state.pairs[other]
                let asked = try? await http.post(
                    "/v1/me/friend-requests", #"{"userId": "\#(them.friendId)"}"#, headers: buyer)
                guard step("gifter friend request", asked?.status ?? 0, expected: [200]) else { return }
                // `friends` when an earlier round's friendship is still there (journeys overlap
                // when answers are slow): nothing to accept then.
                guard let asked, jsonField("relation", in: asked.body) == "requested" else { continue }
                let accepted = try? await http.post(
                    "/v1/me/friend-requests/\(pair.buyerId)/accept", "{}",
                    headers: ["Authorization": "Bearer \(them.friendToken)"])
                guard step("gifter friend accept", accepted?.status ?? 0, expected: [200]) else { return }
            case .unfriend(let other):
                let removed = try? await http.send(
                    .DELETE, "/v1/me/friends/\(state.pairs[other].friendId)", json: nil, headers: buyer)
                // 404 when an overlapping round's request was not accepted yet or removed already.
                guard step("gifter remove friend", removed?.status ?? 0, expected: [204, 404]) else { return }
            case .favourite:
                let favourite = try? await http.post(
                    "/v1/me/favourites", #"{"itemId": "\#(item)"}"#,
                    headers: ["Authorization": "Bearer \(pair.friendToken)"])
                guard step("gifter favourite", favourite?.status ?? 0, expected: [200, 201]) else { return }
            case .friendsWishList:
                let list = try? await http.get("/v1/users/\(pair.friendId)/favourites?limit=20", headers: buyer)
                guard step("gifter friend's wish list", list?.status ?? 0, expected: [200]) else { return }
            case .purchase:
                let order = GiftJourney.orderBody(index: index, item: item, card: pair.card, friendId: pair.friendId)
                let headers = buyer.merging(["Idempotency-Key": "gift-\(run)-\(index)"]) { $1 }
                var placed = try? await http.post("/v1/orders", order, headers: headers)
                for attempt in 1..<Self.orderAttempts where Self.isWorthRetrying(placed?.status) {
                    tally.retries.add(1, ordering: .relaxed)
                    try? await Task.sleep(for: .milliseconds(250 * attempt))
                    placed = try? await http.post("/v1/orders", order, headers: headers)
                }
                if step("gifter gift purchase", placed?.status ?? 0, expected: [201]),
                    let id = placed.flatMap({ jsonField("id", in: $0.body) })
                {
                    acknowledged?.append(id)
                }
            }
        }
    }
}
