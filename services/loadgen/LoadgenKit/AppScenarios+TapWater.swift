import Foundation
import Synchronization

/// TapWater's traffic: each simulated user logs a drink every `drinkEvery` seconds from the
/// phone (online, `POST /v1/me/drinks`) and syncs every `syncEvery` seconds, alternating
/// between the phone and the tablet; half the tablet's syncs carry a drink it logged offline.
/// Users share `accounts` accounts (each user's devices are its own); a drink without an answer,
/// or answered 502/503/504, is sent again with the same UUID, as the app does.
extension AppScenarios {
    /// What the TapWater users share: each account's session, each device's cursor and turn.
    final class TapWaterState: Sendable {
        let sessions: SessionPool
        let cursors = Mutex<[Int: String]>([:])
        let turns = Mutex<[Int: Int]>([:])

        init(sessions: SessionPool) { self.sessions = sessions }
    }

    /// Registers the accounts, signs them in and gives each a plan with reminders, each account
    /// from an address of its own (as many phones would), so the set-up stays within the limits.
    func tapwaterState(_ http: GatewayHTTP, tally: Tally) async throws -> TapWaterState {
        let accounts = try await register(http, count: settings.accounts, prefix: "tapwater", card: false)
        let zones = ["Europe/Stockholm", "America/New_York", "Asia/Kolkata"]
        let sessions = try await withThrowingTaskGroup(of: (Int, SessionPool.Session).self) { group in
            for (index, account) in accounts.enumerated() {
                group.addTask {
                    try await SimulatedClient.acting(as: Self.tapwaterClients + index) {
                        let credentials = #"{"username": "\#(account.name)", "password": "\#(Self.password)"}"#
                        let login = try await Self.setup(http, "/v1/auth/login", credentials)
                        guard let session = SessionPool.session(fromLogin: login.body) else {
                            throw BenchError("login \(account.name): HTTP \(login.status) \(login.body)")
                        }
                        let token = session.access
                        let plan = """
                            {"dailyGoal": 64, "unit": "oz", "remindersPerDay": 4, "wake": "07:00", "sleep": "22:00", "timeZone": "\(zones[index % zones.count])"}
                            """
                        let saved = try await http.send(
                            .PUT, "/v1/me/hydration/plan", json: plan, headers: ["Authorization": "Bearer \(token)"])
                        guard saved.status == 200 else {
                            throw BenchError("plan for \(account.name): HTTP \(saved.status) \(saved.body)")
                        }
                        return (index, session)
                    }
                }
            }
            var sessions = [SessionPool.Session?](repeating: nil, count: accounts.count)
            for try await (index, session) in group { sessions[index] = session }
            return sessions.compactMap { $0 }
        }
        return TapWaterState(sessions: SessionPool(
                sessions, tally: tally, kind: "tapwater token refresh", renewAfter: settings.renewAfter))
    }

    /// Where TapWater's simulated client numbers start (apart from the other apps' clients).
    static let tapwaterClients = 1 << 16

    func tapwater(_ http: GatewayHTTP, state: TapWaterState, acknowledged: AcknowledgedOrders?, tally: Tally)
        -> PeriodicUsers
    {
        let categories = ["drink", "glass", "bottle"]
        /// Sends `body` until it has an answer that is not 502/503/504 (8 tries at most).
        @Sendable func persist(_ path: String, _ body: String, user: Int) async -> Int {
            let headers = await state.sessions.authorization(user, http: http)
            var answer = try? await http.post(path, body, headers: headers)
            for attempt in 1..<Self.orderAttempts where Self.isWorthRetrying(answer?.status) {
                tally.retries.add(1, ordering: .relaxed)
                try? await Task.sleep(for: .milliseconds(250 * attempt))
                answer = try? await http.post(path, body, headers: headers)
            }
            return answer?.status ?? 0
        }
        let drink = PeriodicUsers.Action(every: settings.drinkEvery) { user, due in
            await SimulatedClient.acting(as: Self.tapwaterClients + user) {
                let uuid = UUID().uuidString.lowercased()
                let body = """
                    {"uuid": "\(uuid)", "category": "\(categories[user % 3])", "drankAt": "\(Date().formatted(.iso8601))", "deviceId": "phone-\(user)"}
                    """
                let status = await persist("/v1/me/drinks", body, user: user)
                tally.record("tapwater log drink", status: status, latency: .now - due, expected: [201, 200])
                if status == 201 || status == 200 { acknowledged?.append(uuid) }
            }
        }
        let sync = PeriodicUsers.Action(every: settings.syncEvery) { user, due in
            await SimulatedClient.acting(as: Self.tapwaterClients + user) {
                let turn = state.turns.withLock { turns in
                    defer { turns[user, default: 0] += 1 }
                    return turns[user, default: 0]
                }
                let device = turn % 2 == 0 ? "phone" : "tablet"
                let key = user * 2 + turn % 2
                var offline: String?
                var changes = "[]"
                if device == "tablet", turn % 4 == 1 {
                    let uuid = UUID().uuidString.lowercased()
                    let now = Date().formatted(.iso8601)
                    offline = uuid
                    changes =
                        #"[{"uuid": "\#(uuid)", "category": "glass", "drankAt": "\#(now)", "modifiedAt": "\#(now)"}]"#
                }
                var pages = 0
                while pages < 20 {
                    pages += 1
                    let cursor = state.cursors.withLock { $0[key] }.map { #""\#($0)""# } ?? "null"
                    let body = #"{"cursor": \#(cursor), "deviceId": "\#(device)-\#(user)", "changes": \#(changes)}"#
                    let headers = await state.sessions.authorization(user, http: http)
                    var answer = try? await http.post("/v1/me/hydration/sync", body, headers: headers)
                    for attempt in 1..<Self.orderAttempts where Self.isWorthRetrying(answer?.status) {
                        tally.retries.add(1, ordering: .relaxed)
                        try? await Task.sleep(for: .milliseconds(250 * attempt))
                        answer = try? await http.post("/v1/me/hydration/sync", body, headers: headers)
                    }
                    tally.record("tapwater sync", status: answer?.status ?? 0, latency: .now - due, expected: [200])
                    guard answer?.status == 200, let reply = answer.flatMap({ jsonObject($0.body) }),
                        let next = reply["cursor"] as? String
                    else { return }
                    if let uuid = offline {
                        acknowledged?.append(uuid)
                        offline = nil
                        changes = "[]"
                    }
                    state.cursors.withLock { $0[key] = next }
                    guard reply["hasMore"] as? Bool == true else { return }
                }
            }
        }
        return PeriodicUsers(users: settings.tapwaterUsers, actions: [drink, sync], seed: 2027)
    }
}
