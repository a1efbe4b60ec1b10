import Foundation
import NIOCore
import NIOHTTP1
import ServiceKit
import Synchronization

/// The apps' traffic through the gateway, as open-loop arrivals (see ``OpenLoop``).
///
/// - `navup`: simulated students, each locating itself by Wi-Fi every 10 s, asking for a route
///   every 60 s, searching for a venue every 120 s and asking for the way to its next class every
///   hour (periods configurable; the next-class requests are signed in, as `--accounts` students
///   with sample modules shared among the simulated ones).
/// - `gifter`: logins at a fixed rate, a share of them with a wrong password aimed at a few
///   accounts, which therefore get held (their answers, 401 and 423, are correct answers); and
///   gift journeys between friends (see `AppScenarios+Gifts.swift`).
/// - `postcard`: journeys at a fixed rate: log in, (with `--image`: upload it resumably, fetch
///   its 320-pixel copy and preview the card), quote, order and pay with a saved card; the bytes
///   sent and received per finished journey are reported beside the photo's own size. With
///   `--ecard-rate`, free e-cards too, sent by accounts with no card (see
///   `AppScenarios+Ecards.swift`).
/// - `tapwater`: simulated users logging drinks and syncing from two devices (see
///   `AppScenarios+TapWater.swift`).
/// - `politimap`: simulated users opening PolitiMap twice a day: highlights, a page of bills,
///   two bills read (see `AppScenarios+PolitiMap.swift`).
/// - `mixed`: all five at once.
struct AppScenarios {
    struct Settings: Sendable {
        var baseURL = "http://127.0.0.1:8080"
        var seconds = 30.0
        var inFlight = 4096
        var users = 0
        var locateEvery = 10.0
        var routeEvery = 60.0
        var searchEvery = 120.0
        /// Each NavUP student's next-class period, seconds (0: none).
        var nextClassEvery = 3_600.0
        var loginRate = 0.0
        var wrongShare = 0.1
        /// Gifter: gift journeys per second (search, favourite, purchase for a friend).
        var giftRate = 0.0
        var postcardRate = 0.0
        /// PostcardBuddy: free e-cards per second, by accounts with no card (see `AppScenarios+Ecards.swift`).
        var ecardRate = 0.0
        var accounts = 40
        var image: String?
        /// The image type the postcard journey's preview asks for (`Accept: image/<type>`), and
        /// its width (`w`), if any.
        var previewType = "jpeg"
        var previewWidth: Int?
        /// Where to write the id of every order the system acknowledged (201), one per line.
        var acknowledgedFile: String?
        /// TapWater users, and each one's periods in seconds.
        var tapwaterUsers = 0
        var drinkEvery = 2_700.0
        var syncEvery = 600.0
        /// Where to write the UUID of every drink the system acknowledged, one per line.
        var acknowledgedDrinksFile: String?
        /// PolitiMap users, and how often each opens the app, in seconds.
        var politimapUsers = 0
        var openEvery = 43_200.0
        /// Renew each signed-in session this many seconds after it was issued; nil: a minute
        /// before its access token expires.
        var renewEvery: Double?

        var renewAfter: Duration? { renewEvery.map { .milliseconds(Int64($0 * 1_000)) } }
    }

    let settings: Settings

    struct Outcome: Sendable {
        let scenario: String
        let seconds: Double
        let kinds: [String: Tally.Kind]
        /// Orders sent again with the same key after no answer or a 502/503/504.
        let retries: Int
        let settings: Settings
        /// Bytes per finished journey, by journey (the postcard scenario's).
        var journeys: [String: Tally.JourneyBytes] = [:]
    }

    func run(_ scenario: String, progress: @Sendable (String) -> Void) async throws -> Outcome {
        try await GatewayHTTP.with(baseURL: settings.baseURL) { http in
            var sources: [any ArrivalSource] = []
            let tally = Tally()
            // One file for the orders of every scenario (postcards and gifts): opening it empties it.
            let acknowledgedOrders = try settings.acknowledgedFile.map { try AcknowledgedOrders(path: $0) }
            if settings.users > 0 {
                progress("NavUP: reading the campus (access points, venues)")
                let campus = try await Campus.load(http)
                var students: SessionPool?
                if settings.nextClassEvery > 0 {
                    progress("NavUP: registering \(settings.accounts) students with sample modules (next class)")
                    do {
                        students = SessionPool(
                            try await navupStudents(http, count: settings.accounts), tally: tally,
                            kind: "navup token refresh", renewAfter: settings.renewAfter)
                    } catch {
                        // Without auth (SERVICES=routing runs) there are no students: the other
                        // requests go on, anonymous as before.
                        progress("NavUP: no next-class requests, students could not sign in (\(error))")
                    }
                }
                sources.append(navup(http, campus: campus, students: students, tally: tally))
            }
            if settings.loginRate > 0 {
                progress("Gifter: registering \(settings.accounts) accounts")
                let names = try await register(http, count: settings.accounts, prefix: "gifter", card: false)
                sources.append(gifter(http, accounts: names.map(\.name), tally: tally))
            }
            if settings.giftRate > 0 {
                let pairs = max(1, settings.accounts / 4)
                progress("Gifter: registering \(pairs * 2) accounts with a card each, \(pairs) pairs of friends")
                let state = try await giftState(http, pairs: pairs)
                sources.append(gifts(http, state: state, acknowledged: acknowledgedOrders, tally: tally))
            }
            if settings.postcardRate > 0 {
                progress("PostcardBuddy: registering \(settings.accounts) accounts with a card each")
                let accounts = try await register(http, count: settings.accounts, prefix: "postcard", card: true)
                let image = try settings.image.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
                sources.append(
                    postcard(http, accounts: accounts, image: image, acknowledged: acknowledgedOrders, tally: tally))
            }
            if settings.ecardRate > 0 {
                progress("PostcardBuddy: registering \(settings.accounts) accounts with no card (free e-cards)")
                let accounts = try await register(http, count: settings.accounts, prefix: "ecard", card: false)
                sources.append(ecards(http, accounts: accounts, acknowledged: acknowledgedOrders, tally: tally))
            }
            if settings.tapwaterUsers > 0 {
                progress("TapWater: registering \(settings.accounts) accounts with a plan each")
                let state = try await tapwaterState(http, tally: tally)
                let acknowledged = try settings.acknowledgedDrinksFile.map { try AcknowledgedOrders(path: $0) }
                sources.append(tapwater(http, state: state, acknowledged: acknowledged, tally: tally))
            }
            if settings.politimapUsers > 0 {
                sources.append(politimap(http, tally: tally))
            }
            guard !sources.isEmpty else {
                throw BenchError(
                    "nothing to send: give --users, --login-rate, --gift-rate, --postcard-rate, --tapwater-users or "
                        + "--politimap-users")
            }
            progress(
                "\(scenario): \(settings.seconds) s open loop (users \(settings.users), logins \(settings.loginRate)/s, "
                    + "gifts \(settings.giftRate)/s, postcards \(settings.postcardRate)/s, "
                    + "free e-cards \(settings.ecardRate)/s, "
                    + "TapWater users \(settings.tapwaterUsers), PolitiMap users \(settings.politimapUsers))")
            let loop = OpenLoop(
                seconds: settings.seconds, inFlight: settings.inFlight, executor: EventLoopTaskExecutor(group: .singleton))
            let elapsed = await loop.run(MergedArrivals(sources), tally: tally)
            return Outcome(
                scenario: scenario, seconds: elapsed, kinds: tally.snapshot,
                retries: tally.retries.load(ordering: .relaxed), settings: settings,
                journeys: tally.journeys.withLock { $0 })
        }
    }

    // MARK: NavUP

    struct Campus: Sendable {
        struct AccessPoint: Sendable {
            let bssid: String
            let lat: Double
            let lon: Double
            let level: Int
        }
        let accessPoints: [AccessPoint]
        /// For each access point, the indices of the two nearest others on its level.
        let neighbours: [[Int]]
        let venues: [(id: String, name: String)]

        static func load(_ http: GatewayHTTP) async throws -> Campus {
            let (status, body) = try await http.get("/v1/campus/access-points")
            guard status == 200, let list = jsonObject(body)?["accessPoints"] as? [[String: Any]], !list.isEmpty else {
                throw BenchError("GET /v1/campus/access-points: HTTP \(status); is routing running with a campus?")
            }
            let points = list.compactMap { entry -> AccessPoint? in
                guard let bssid = entry["bssid"] as? String, let lat = entry["lat"] as? Double,
                    let lon = entry["lon"] as? Double
                else { return nil }
                return AccessPoint(bssid: bssid, lat: lat, lon: lon, level: entry["level"] as? Int ?? 0)
            }
            let neighbours = points.indices.map { index in
                points.indices.filter { $0 != index && points[$0].level == points[index].level }
                    .sorted { points[$0].distance(to: points[index]) < points[$1].distance(to: points[index]) }
                    .prefix(2).map { $0 }
            }
            let (venueStatus, venueBody) = try await http.get("/v1/campus/venues?limit=100")
            guard venueStatus == 200, let venueList = jsonObject(venueBody)?["items"] as? [[String: Any]],
                venueList.count >= 2
            else { throw BenchError("GET /v1/campus/venues: HTTP \(venueStatus), fewer than two venues") }
            let venues = venueList.compactMap { entry -> (id: String, name: String)? in
                guard let id = entry["id"] as? String, let name = entry["name"] as? String else { return nil }
                return (id, name)
            }
            return Campus(accessPoints: points, neighbours: neighbours, venues: venues)
        }
    }

    /// Modules of the sample timetable (`deploy/campus/generate_timetable.py`) students take.
    static let sampleModules = [
        "COS 110", "COS 132", "COS 151", "COS 212", "COS 214", "COS 221", "COS 226", "COS 301", "COS 330",
        "COS 332", "WTW 114", "WTW 115", "WTW 124", "STK 110", "PHY 114", "ENG 110", "PSY 110", "ECO 110",
    ]

    /// Signed-in students (their sessions), each taking four sample modules. A campus
    /// without those modules answers 400 to the enrolment, which leaves the student with none
    /// (their next-class requests are then 404s, correct answers).
    func navupStudents(_ http: GatewayHTTP, count: Int) async throws -> [SessionPool.Session] {
        let accounts = try await register(http, count: count, prefix: "navup", card: false)
        return try await withThrowingTaskGroup(of: SessionPool.Session.self) { group in
            for (index, account) in accounts.enumerated() {
                group.addTask {
                    try await SimulatedClient.acting(as: index) {
                        let credentials = #"{"username": "\#(account.name)", "password": "\#(Self.password)"}"#
                        let login = try await Self.setup(http, "/v1/auth/login", credentials)
                        guard let session = SessionPool.session(fromLogin: login.body) else {
                            throw BenchError("login \(account.name): HTTP \(login.status) \(login.body)")
                        }
                        let token = session.access
                        let shift = index % Self.sampleModules.count
                        let modules = Self.sampleModules[shift...] + Self.sampleModules[..<shift]
                        let codes = modules.prefix(4).map { #""\#($0)""# }.joined(separator: ", ")
                        _ = try await http.send(
                            .PUT, "/v1/me/modules", json: #"{"codes": [\#(codes)]}"#,
                            headers: ["Authorization": "Bearer \(token)"])
                        return session
                    }
                }
            }
            var sessions: [SessionPool.Session] = []
            for try await session in group { sessions.append(session) }
            return sessions
        }
    }

    func navup(_ http: GatewayHTTP, campus: Campus, students: SessionPool?, tally: Tally) -> PeriodicUsers {
        let locate = PeriodicUsers.Action(every: settings.locateEvery) { user, due in
            await SimulatedClient.acting(as: user) {
                var random = RequestRandom.next()
                let here = Int.random(in: campus.accessPoints.indices, using: &random)
                // The body written as one string: a list of pairs mapped to strings and joined
                // made a dozen strings per locate.
                var json = #"{"scan": [{"bssid": ""#
                json += campus.accessPoints[here].bssid
                json += #"", "rssi": "#
                json += String(Int(Double.random(in: -60 ... -42, using: &random)))
                json += "}"
                for (rank, other) in campus.neighbours[here].enumerated() {
                    json += #", {"bssid": ""#
                    json += campus.accessPoints[other].bssid
                    json += #"", "rssi": "#
                    json += String(Int(Double.random(in: -80 ... -65, using: &random) - Double(rank)))
                    json += "}"
                }
                json += "]}"
                let status = (try? await http.call(.POST, "/v1/campus/locate", json: json).status) ?? 0
                tally.record("navup locate", status: status, latency: .now - due, correct: status == 200)
            }
        }
        let route = PeriodicUsers.Action(every: settings.routeEvery) { user, due in
            await SimulatedClient.acting(as: user) {
                // Two different venues, without shuffling the whole list for each route.
                var random = RequestRandom.next()
                let first = Int.random(in: campus.venues.indices, using: &random)
                let other = (first + Int.random(in: 1..<max(2, campus.venues.count), using: &random)) % campus.venues.count
                let pair = [campus.venues[first], campus.venues[other]]
                let profile = Int.random(in: 0..<10, using: &random) == 0 ? "accessible" : "fastest"
                let body = """
                    {"from": {"venueId": "\(pair.first!.id)"}, "to": {"venueId": "\(pair.last!.id)"}, "profile": "\(profile)"}
                    """
                let answer = try? await http.call(.POST, "/v1/campus/routes", json: body)
                let status = answer?.status ?? 0
                // A venue an admin placed away from every walkway is a 400 `off_map` for any
                // profile: a correct answer for that pair (the list is whatever the campus holds).
                // Only a 400's body is searched, as bytes: a route's body runs to kilobytes, and
                // making it a string to search with Foundation was 4% of the load generator's CPU.
                let offMap = status == 400 && answer?.contains(#""off_map""#) == true
                // Some venues have no step-free way to them (a building without a lift): for the
                // accessible profile 422 `no_route` is a correct answer.
                if profile == "accessible" {
                    tally.record(
                        "navup route, accessible", status: status, latency: .now - due,
                        correct: offMap || status == 200 || status == 422)
                } else {
                    tally.record("navup route", status: status, latency: .now - due, correct: offMap || status == 200)
                }
            }
        }
        let search = PeriodicUsers.Action(every: settings.searchEvery) { user, due in
            await SimulatedClient.acting(as: user) {
                var random = RequestRandom.next()
                let name = campus.venues.randomElement(using: &random)!.name.lowercased()
                // A student types a few letters, sometimes with a slip.
                var query = Array(name.prefix(Int.random(in: 4...max(4, min(10, name.count)), using: &random)))
                if query.count > 4, Bool.random(using: &random) {
                    query.remove(at: Int.random(in: 1..<query.count, using: &random))
                }
                let q = String(query).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "x"
                let status = (try? await http.call(.GET, "/v1/campus/venues?q=\(q)&limit=10").status) ?? 0
                tally.record("navup search", status: status, latency: .now - due, correct: status == 200)
            }
        }
        var actions = [locate, route, search]
        if let students, students.count > 0 {
            actions.append(
                PeriodicUsers.Action(every: settings.nextClassEvery) { user, due in
                    await SimulatedClient.acting(as: user) {
                        var random = RequestRandom.next()
                        let from = campus.venues.randomElement(using: &random)!
                        let answer = try? await http.post(
                            "/v1/campus/routes/next-class", #"{"from": {"venueId": "\#(from.id)"}}"#,
                            headers: await students.authorization(user, http: http))
                        let status = answer?.status ?? 0
                        // 404: no class in the next 12 hours (nights, weekends); an off-map venue is a 400.
                        let offMap: Set<Int> =
                            status == 400 && answer?.body.contains(#""off_map""#) == true ? [400] : []
                        tally.record(
                            "navup next class", status: status, latency: .now - due, expected: offMap.union([200, 404]))
                    }
                })
        }
        return PeriodicUsers(users: settings.users, actions: actions)
    }

    // MARK: Gifter

    func gifter(_ http: GatewayHTTP, accounts: [String], tally: Tally) -> SteadyArrivals {
        // Wrong passwords go to one account in ten (an attacker guessing), whose owners stay
        // away: five guesses hold the account and the guesses after that get 423. Right
        // passwords go to the other accounts.
        let targets = Array(accounts.prefix(max(1, accounts.count / 10)))
        let owners = accounts.count > targets.count ? Array(accounts.dropFirst(targets.count)) : accounts
        let share = settings.wrongShare
        return SteadyArrivals(rate: settings.loginRate) { index in
            { due in
                await SimulatedClient.acting(as: index) {
                    // Spread evenly: arrival i is a wrong one when the running count of wrong ones
                    // (i × share, rounded down) steps up at it.
                    if (Double(index + 1) * share).rounded(.down) > (Double(index) * share).rounded(.down) {
                        let name = targets[index % targets.count]
                        let body = #"{"username": "\#(name)", "password": "Wrong-\#(index)x"}"#
                        let status = (try? await http.post("/v1/auth/login", body).status) ?? 0
                        tally.record(
                            "gifter login, wrong password", status: status, latency: .now - due, expected: [401, 423])
                    } else {
                        let name = owners[index % owners.count]
                        let body = #"{"username": "\#(name)", "password": "\#(Self.password)"}"#
                        let status = (try? await http.post("/v1/auth/login", body).status) ?? 0
                        tally.record(
                            "gifter login, right password", status: status, latency: .now - due,
                            expected: owners.count == accounts.count ? [200, 423] : [200])
                    }
                }
            }
        }
    }

    // MARK: PostcardBuddy

    /// Tries of one order before the journey gives up.
    static let orderAttempts = 8

    /// No answer, or the gateway saying the service is away or late: an app would try again.
    static func isWorthRetrying(_ status: Int?) -> Bool {
        guard let status else { return true }
        return status == 0 || status == 502 || status == 503 || status == 504
    }

    func postcard(
        _ http: GatewayHTTP, accounts: [Account], image: Data?, acknowledged: AcknowledgedOrders?, tally: Tally
    ) -> SteadyArrivals {
        let run = UUID().uuidString.prefix(8).lowercased()
        return SteadyArrivals(rate: settings.postcardRate) { index in
            { due in
                let meter = GatewayHTTP.ByteMeter()
                await GatewayHTTP.$meter.withValue(meter) {
                    let finished = await journey(
                        http, index: index, due: due, accounts: accounts, image: image, run: run,
                        acknowledged: acknowledged, tally: tally)
                    if finished {
                        tally.record(
                            journey: "postcard journey", sent: meter.sent.load(ordering: .relaxed),
                            received: meter.received.load(ordering: .relaxed), photo: image?.count ?? 0)
                    }
                }
            }
        }
    }

    /// One PostcardBuddy journey; true when it got to the end (the order acknowledged). With an
    /// image, the photo goes up as the app sends it on a phone's network: a resumable upload (tus
    /// 1.0.0, `POST /v1/uploads` then `PATCH`), then the app shows it from a 320-pixel copy.
    func journey(
        _ http: GatewayHTTP, index: Int, due: ContinuousClock.Instant, accounts: [Account], image: Data?,
        run: String, acknowledged: AcknowledgedOrders?, tally: Tally
    ) async -> Bool {
        await SimulatedClient.acting(as: index % accounts.count) {
            let account = accounts[index % accounts.count]
            var stepStart = due
            /// Records one step of the journey; false ends it.
            func step(_ kind: String, _ status: Int, expected: Int) -> Bool {
                tally.record(kind, status: status, latency: .now - stepStart, expected: [expected])
                stepStart = .now
                return status == expected
            }
            let credentials = #"{"username": "\#(account.name)", "password": "\#(Self.password)"}"#
            let login = try? await http.post("/v1/auth/login", credentials)
            guard step("postcard login", login?.status ?? 0, expected: 200),
                let token = login.flatMap({ jsonField("accessToken", in: $0.body) })
            else { return false }
            let auth = ["Authorization": "Bearer \(token)"]
            var imageField = ""
            if let image {
                let tus = auth.merging(["Tus-Resumable": "1.0.0"]) { $1 }
                let created = try? await http.exchange(
                    .POST, "/v1/uploads", body: nil,
                    headers: tus.merging(["Upload-Length": "\(image.count)"]) { $1 })
                guard step("postcard upload start", created?.status ?? 0, expected: 201),
                    let location = created?.headers.first(name: "Location")
                else { return false }
                let sent = try? await http.exchange(
                    .PATCH, location, body: (ByteBuffer(bytes: image), "application/offset+octet-stream"),
                    headers: tus.merging(["Upload-Offset": "0"]) { $1 })
                guard step("postcard upload bytes", sent?.status ?? 0, expected: 204),
                    let id = sent?.headers.first(name: "X-Image-Id")
                else { return false }
                let shown = try? await http.exchange(.GET, "/v1/images/\(id)/content?w=320", body: nil, headers: auth)
                guard step("postcard image w=320", shown?.status ?? 0, expected: 200) else { return false }
                imageField = #""imageId": "\#(id)", "edits": [{"type": "brightness", "amount": 0.1}], "#
                let preview = #"{"imageId": "\#(id)", "edits": [], "size": "A6", "side": "front"}"#
                let previewed = try? await http.post(
                    "/v1/postcards/preview" + (settings.previewWidth.map { "?w=\($0)" } ?? ""), preview,
                    headers: auth.merging(["Accept": "image/\(settings.previewType)"]) { $1 })
                guard step("postcard preview", previewed?.status ?? 0, expected: 200) else { return false }
            }
            let recipients =
                #"[{"name": "Ada \#(index)", "address": {"line1": "Storgatan 1", "city": "Lund", "postalCode": "22350", "country": "SE"}}]"#
            let quote = try? await http.post(
                "/v1/quotes", #"{"size": "A6", "recipients": [{"country": "SE"}], "currency": "EUR"}"#,
                headers: auth)
            guard step("postcard quote", quote?.status ?? 0, expected: 200) else { return false }
            let order = """
                {"kind": "postcard", "currency": "EUR", "paymentMethodId": "\(account.card ?? "")",
                 "postcard": {\(imageField)"size": "A6", "greeting": "Hälsningar från Lund", "recipients": \(recipients)}}
                """
            // As the app does when the connection drops or the server is away: send the
            // same order again with the same key, a few times, a bit later each time.
            let headers = auth.merging(["Idempotency-Key": "\(run)-\(index)"]) { $1 }
            var placed = try? await http.post("/v1/orders", order, headers: headers)
            for attempt in 1..<Self.orderAttempts where Self.isWorthRetrying(placed?.status) {
                tally.retries.add(1, ordering: .relaxed)
                try? await Task.sleep(for: .milliseconds(250 * attempt))
                placed = try? await http.post("/v1/orders", order, headers: headers)
            }
            guard step("postcard order and pay", placed?.status ?? 0, expected: 201),
                let id = placed.flatMap({ jsonField("id", in: $0.body) })
            else { return false }
            acknowledged?.append(id)
            return true
        }
    }

    // MARK: Accounts

    static let password = "Loadgen2026x"

    struct Account: Sendable {
        let name: String
        let card: String?
    }

    /// Registers `count` fresh accounts (and saves a test card for each when `card`).
    /// A request of the set-up (accounts, cards), tried again up to five times, a second apart,
    /// while the system answers 502, 503 or 504 (still starting, or busy with the other set-up
    /// requests); `retried` says whether an answer came from a second try.
    static func setup(_ http: GatewayHTTP, _ path: String, _ json: String, headers: [String: String] = [:])
        async throws -> (status: Int, body: String, retried: Bool)
    {
        var answer = try await http.post(path, json, headers: headers)
        var retried = false
        for _ in 0..<5 where [502, 503, 504].contains(answer.status) {
            try await Task.sleep(for: .seconds(1))
            answer = try await http.post(path, json, headers: headers)
            retried = true
        }
        return (answer.status, answer.body, retried)
    }

    func register(_ http: GatewayHTTP, count: Int, prefix: String, card: Bool) async throws -> [Account] {
        let run = UUID().uuidString.prefix(8).lowercased()
        return try await withThrowingTaskGroup(of: Account.self) { group in
            for index in 0..<count {
                group.addTask {
                    try await SimulatedClient.acting(as: index) {
                        let name = "\(prefix)-\(run)-\(index)@example.org"
                        let credentials = #"{"username": "\#(name)", "password": "\#(Self.password)"}"#
                        let registered = try await Self.setup(http, "/v1/auth/register", credentials)
                        // 409 only after a retry: the first try did register.
                        guard registered.status == 201 || (registered.status == 409 && registered.retried) else {
                            throw BenchError("register \(name): HTTP \(registered.status) \(registered.body)")
                        }
                        guard card else { return Account(name: name, card: nil) }
                        let login = try await Self.setup(http, "/v1/auth/login", credentials)
                        guard let token = jsonField("accessToken", in: login.body) else {
                            throw BenchError("login \(name): HTTP \(login.status) \(login.body)")
                        }
                        let saved = try await Self.setup(
                            http, "/v1/payment-methods",
                            #"{"number": "4242424242424242", "expMonth": 12, "expYear": 2099, "cvc": "123"}"#,
                            headers: ["Authorization": "Bearer \(token)"])
                        guard let id = jsonField("id", in: saved.body) else {
                            throw BenchError("card for \(name): HTTP \(saved.status) \(saved.body)")
                        }
                        return Account(name: name, card: id)
                    }
                }
            }
            var accounts: [Account] = []
            for try await account in group { accounts.append(account) }
            return accounts
        }
    }

    // MARK: Report

    static func table(_ outcome: Outcome) -> String {
        var lines = [
            "",
            "\(outcome.scenario): \(String(format: "%.1f", outcome.seconds)) s",
            "",
            "request".padded(34) + "count".leftPadded(8) + "per s".leftPadded(9) + "p50 ms".leftPadded(9)
                + "p99 ms".leftPadded(9) + "max ms".leftPadded(9) + "errors".leftPadded(8) + "  statuses",
            String(repeating: "-", count: 110),
        ]
        for (name, kind) in outcome.kinds.sorted(by: { $0.key < $1.key }) {
            let result = kind.recorder.result(name: name, seconds: outcome.seconds)
            let total = kind.statuses.values.reduce(0, +)
            let statuses = kind.statuses.sorted { $0.key < $1.key }.map {
                "\($0.key == 0 ? "none" : "\($0.key)"):\($0.value)"
            }
            lines.append(
                name.padded(34) + "\(total)".leftPadded(8)
                    + String(format: "%.1f", Double(total) / outcome.seconds).leftPadded(9)
                    + String(format: "%.1f", Double(result.p50) / 1000).leftPadded(9)
                    + String(format: "%.1f", Double(result.p99) / 1000).leftPadded(9)
                    + String(format: "%.1f", Double(result.max) / 1000).leftPadded(9)
                    + "\(kind.errors)".leftPadded(8) + "  " + statuses.joined(separator: " "))
        }
        lines.append("")
        if outcome.retries > 0 { lines.append("orders sent again with the same Idempotency-Key: \(outcome.retries)") }
        for (name, bytes) in outcome.journeys.sorted(by: { $0.key < $1.key }) where bytes.count > 0 {
            let sent = bytes.sent / bytes.count
            let received = bytes.received / bytes.count
            let photo =
                bytes.photo > 0
                ? String(
                    format: " (the photo: %d bytes; sent/photo %.3f)", bytes.photo, Double(sent) / Double(bytes.photo))
                : ""
            lines.append(
                "\(name): \(bytes.count) finished; per journey \(sent) bytes sent, \(received) received\(photo)")
        }
        lines.append(
            "latency from when each request was due (open loop); errors: answers other than the expected ones")
        lines.append("\(ProcessInfo.processInfo.activeProcessorCount) cores; \(Date())")
        return lines.joined(separator: "\n")
    }

    static func json(_ outcome: Outcome) throws -> Data {
        let settings = outcome.settings
        let object: [String: Any] = [
            "scenario": outcome.scenario, "seconds": outcome.seconds, "orderRetries": outcome.retries,
            "settings": [
                "users": settings.users, "locateEvery": settings.locateEvery, "routeEvery": settings.routeEvery,
                "nextClassEvery": settings.nextClassEvery,
                "searchEvery": settings.searchEvery, "loginRate": settings.loginRate,
                "wrongShare": settings.wrongShare, "postcardRate": settings.postcardRate,
                "ecardRate": settings.ecardRate,
                "accounts": settings.accounts, "inFlight": settings.inFlight,
                "tapwaterUsers": settings.tapwaterUsers, "drinkEvery": settings.drinkEvery,
                "politimapUsers": settings.politimapUsers, "openEvery": settings.openEvery,
                "syncEvery": settings.syncEvery, "renewEvery": settings.renewEvery.map { $0 as Any } ?? NSNull(),
            ] as [String: Any],
            "requests": outcome.kinds.sorted(by: { $0.key < $1.key }).map { name, kind in
                let result = kind.recorder.result(name: name, seconds: outcome.seconds)
                return [
                    "name": name, "count": kind.statuses.values.reduce(0, +), "errors": kind.errors,
                    "p50Micros": Int(result.p50), "p99Micros": Int(result.p99), "maxMicros": Int(result.max),
                    "statuses": Dictionary(uniqueKeysWithValues: kind.statuses.map { ("\($0.key)", $0.value) }),
                ] as [String: Any]
            },
            "journeys": Dictionary(
                uniqueKeysWithValues: outcome.journeys.map { name, bytes in
                    (
                        name,
                        [
                            "count": bytes.count, "sentPerJourney": bytes.count > 0 ? bytes.sent / bytes.count : 0,
                            "receivedPerJourney": bytes.count > 0 ? bytes.received / bytes.count : 0,
                            "photoBytes": bytes.photo,
                        ]
                    )
                }),
            "cores": ProcessInfo.processInfo.activeProcessorCount, "date": ISO8601DateFormatter().string(from: Date()),
        ]
        return try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
    }
}

extension AppScenarios.Campus.AccessPoint {
    /// Squared degrees, good enough to rank neighbours on one campus.
    func distance(to other: Self) -> Double {
        let dlat = lat - other.lat
        let dlon = (lon - other.lon) * cos(lat * .pi / 180)
        return dlat * dlat + dlon * dlon
    }
}

/// The ids of acknowledged orders, appended to a file as they come (the fault run reconciles
/// the database against it).
final class AcknowledgedOrders: Sendable {
    private let handle: Mutex<FileHandle>

    init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw BenchError("cannot create \(path)")
        }
        handle = Mutex(try FileHandle(forWritingTo: URL(fileURLWithPath: path)))
    }

    func append(_ id: String) {
        handle.withLock { $0.write(Data("\(id)\n".utf8)) }
    }
}

/// The top-level object of a JSON body.
func jsonObject(_ body: String) -> [String: Any]? {
    try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
}

/// Random choices for simulated requests, without a system call each: Swift's system generator
/// asks the kernel (`getrandom`) for every number, and a NavUP locate draws half a dozen. Each
/// request gets its own SplitMix64 stream, seeded from a run-wide counter (one apart, so streams do
/// not overlap the way states one step apart would) that starts from the kernel once; nothing here needs to be unpredictable.
enum RequestRandom {
    private static let seeds = Atomic<UInt64>(UInt64.random(in: .min ... .max))

    /// A generator for one request.
    static func next() -> SeededRandom {
        SeededRandom(seed: seeds.wrappingAdd(1, ordering: .relaxed).oldValue)
    }
}
