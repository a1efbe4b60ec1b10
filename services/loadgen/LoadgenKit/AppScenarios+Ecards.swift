import Foundation

/// PostcardBuddy's free e-cards (`postcard` and `mixed` with `--ecard-rate`): accounts with no
/// card on file, each journey a login and a free e-card to one recipient with no
/// `paymentMethodId`. An order without an answer is sent again with the same `Idempotency-Key`,
/// as the app does; its id goes to the acknowledged file when the system answered 201, so the
/// fault run reconciles free orders with the paid ones (they must move no money). A 429 is the
/// daily cap on free e-card recipients (`FREE_ECARD_RECIPIENTS_PER_DAY`), a correct answer.
extension AppScenarios {
    func ecards(_ http: GatewayHTTP, accounts: [Account], acknowledged: AcknowledgedOrders?, tally: Tally)
        -> SteadyArrivals
    {
        let run = UUID().uuidString.prefix(8).lowercased()
        return SteadyArrivals(rate: settings.ecardRate) { index in
            { due in
                await ecardJourney(
                    http, index: index, due: due, accounts: accounts, run: run, acknowledged: acknowledged,
                    tally: tally)
            }
        }
    }

    /// The free e-card of journey `index`: one recipient, no `paymentMethodId`; the same on
    /// every try of the journey.
    static func ecardOrderBody(index: Int, run: String) -> String {
        """
        {"kind": "ecard", "currency": "EUR",
         "ecard": {"greeting": "Hälsningar från Lund", "senderName": "Loadgen",
           "recipients": [{"name": "Ada \(index)", "email": "ecard-\(run)-\(index)@example.org"}]}}
        """
    }

    /// One free e-card journey by an account with no card.
    func ecardJourney(
        _ http: GatewayHTTP, index: Int, due: ContinuousClock.Instant, accounts: [Account], run: String,
        acknowledged: AcknowledgedOrders?, tally: Tally
    ) async {
        await SimulatedClient.acting(as: index % accounts.count) {
            let account = accounts[index % accounts.count]
            var stepStart = due
            let credentials = #"{"username": "\#(account.name)", "password": "\#(Self.password)"}"#
            let login = try? await http.post("/v1/auth/login", credentials)
            tally.record("ecard login", status: login?.status ?? 0, latency: .now - stepStart, expected: [200])
            stepStart = .now
            guard login?.status == 200, let token = login.flatMap({ jsonField("accessToken", in: $0.body) }) else {
                return
            }
            let order = Self.ecardOrderBody(index: index, run: run)
            let headers = ["Authorization": "Bearer \(token)", "Idempotency-Key": "ecard-\(run)-\(index)"]
            var placed = try? await http.post("/v1/orders", order, headers: headers)
            for attempt in 1..<Self.orderAttempts where Self.isWorthRetrying(placed?.status) {
                tally.retries.add(1, ordering: .relaxed)
                try? await Task.sleep(for: .milliseconds(250 * attempt))
                placed = try? await http.post("/v1/orders", order, headers: headers)
            }
            tally.record(
                "ecard free order (no card)", status: placed?.status ?? 0, latency: .now - stepStart,
                expected: [201, 429])
            if placed?.status == 201, let id = placed.flatMap({ jsonField("id", in: $0.body) }) {
                acknowledged?.append(id)
            }
        }
    }
}
