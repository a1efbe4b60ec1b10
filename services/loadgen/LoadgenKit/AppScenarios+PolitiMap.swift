import Foundation

/// PolitiMap's traffic: each simulated user opens the app every `openEvery` seconds (twice a day
/// by default) with no account, as the app is used: the highlights of every level, a page of
/// one level's bills, then two of those bills read in full; one user in four asks the server
/// which jurisdictions hold a point near San Luis Obispo (the others resolve it on the phone).
/// Each request is timed from when it was sent, the first from when the open was due.
extension AppScenarios {
    /// Where PolitiMap's simulated client numbers start (apart from the other apps' clients).
    static let politimapClients = 3 << 15

    func politimap(_ http: GatewayHTTP, tally: Tally) -> PeriodicUsers {
        let levels = ["local", "county", "state", "federal"]
        let open = PeriodicUsers.Action(every: settings.openEvery) { user, due in
            await SimulatedClient.acting(as: Self.politimapClients + user) {
                let highlights = try? await http.get("/v1/civic/highlights")
                tally.record(
                    "politimap highlights", status: highlights?.status ?? 0, latency: .now - due, expected: [200])
                if user % 4 == 0 {
                    let lat = 35.25 + Double(user % 97) * 0.0007
                    let lon = -120.70 + Double(user % 89) * 0.0009
                    let started = ContinuousClock.now
                    let lookup = try? await http.post("/v1/civic/lookup", #"{"lat": \#(lat), "lon": \#(lon)}"#)
                    tally.record(
                        "politimap lookup", status: lookup?.status ?? 0, latency: .now - started, expected: [200])
                }
                let started = ContinuousClock.now
                let list = try? await http.get("/v1/civic/bills?level=\(levels[user % levels.count])&limit=20")
                tally.record(
                    "politimap bill list", status: list?.status ?? 0, latency: .now - started, expected: [200])
                guard list?.status == 200, let items = list.flatMap({ jsonObject($0.body)?["items"] as? [[String: Any]] })
                else { return }
                let ids = items.compactMap { $0["id"] as? String }
                for pick in [user, user / 3 + 1].map({ ids.isEmpty ? nil : ids[$0 % ids.count] }) {
                    guard let id = pick else { continue }
                    let started = ContinuousClock.now
                    let bill = try? await http.get("/v1/civic/bills/\(id)")
                    tally.record(
                        "politimap bill detail", status: bill?.status ?? 0, latency: .now - started, expected: [200])
                }
            }
        }
        return PeriodicUsers(users: settings.politimapUsers, actions: [open], seed: 2028)
    }
}
