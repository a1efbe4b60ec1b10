import Contract
import Foundation
import ServiceKit
import SocialContract
import Synchronization

/// What each timed request does.
struct Cases: Sendable {
    let router: OperationRouter
    let users: Int
    let launchers: Int

    func call<Op: ServiceOperation>(_ operation: Op.Type, _ request: Op.Request, as user: UUID) async throws -> Op.Reply
    {
        let metadata = RequestMetadata(
            requestId: "bench", actor: Actor(userId: user.uuidString.lowercased(), roles: ["user"]))
        let frames = try Wire.encodeRequest(operation: Op.name, metadata: metadata, payload: request)
        return try Wire.decodeReply(Op.Reply.self, from: await router.handle(frames))
    }

    /// What people type into the directory: first names, surname prefixes, a full name, a
    /// surname with a typo, a username's start, and (one in five) a whole e-mail address.
    func directoryQuery(_ index: Int) -> String {
        var random = SplitMix(seed: UInt64(index))
        let first = SeedStore.firstNames[Int(random.next() % UInt64(SeedStore.firstNames.count))]
        let last = SeedStore.lastNames[Int(random.next() % UInt64(SeedStore.lastNames.count))]
        switch index % 10 {
        case 0, 1: return "bench\(1 + Int(random.next() % UInt64(users)))@example.org"
        case 2: return first.lowercased()
        case 3: return String(last.prefix(4))
        case 4: return "\(first) \(last)"
        case 5: return "\(first) \(last.prefix(3))"
        case 6:
            // A typo: one letter of the surname doubled.
            var letters = Array(last)
            let at = 1 + Int(random.next() % UInt64(letters.count - 1))
            letters.insert(letters[at], at: at)
            return String(letters)
        case 7: return "\(first.lowercased()).\(last.lowercased().prefix(5))"
        case 8: return String(first.prefix(3))
        default: return last
        }
    }

    func directory(_ index: Int) async throws {
        let caller = benchUser(1 + (index * 7919) % users)
        _ = try await call(Social.SearchUsers.self, .init(q: directoryQuery(index)), as: caller)
    }

    static let catalogWords = [
        "teapot", "wireless headphones", "wireless headphnes", "chess set", "yoga mat", "vintage lamp", "guitar",
        "organic soap", "leather backpack", "ceramic mug", "board game", "smart watch", "copper kettle", "kite",
        "bamboo cutting board", "premium", "travel", "puzzle", "candle", "espreso maker",
    ]
    static let categories = ["books", "toys", "kitchen", "electronics", "garden", "sports", "beauty", "games", "music", "home"]

    func catalog(_ index: Int) async throws {
        var random = SplitMix(seed: UInt64(index) &* 31)
        let q = Self.catalogWords[Int(random.next() % UInt64(Self.catalogWords.count))]
        let caller = benchUser(1 + index % max(1, users))
        var request = Social.SearchCatalog.Request(q: q, limit: 20)
        switch index % 5 {
        case 1: request.category = Self.categories[Int(random.next() % UInt64(Self.categories.count))]
        case 2:
            request.minPrice = 1_000
            request.maxPrice = 5_000
        case 3: request.q = nil
            request.category = Self.categories[Int(random.next() % UInt64(Self.categories.count))]
        default: break
        }
        let page = try await call(Social.SearchCatalog.self, request, as: caller)
        if index % 10 == 0, let next = page.nextCursor {
            request.cursor = next
            _ = try await call(Social.SearchCatalog.self, request, as: caller)
        }
    }

    /// The launch pull-down: the three reads at once, done when the last answers.
    func launch(_ index: Int) async throws {
        let user = benchUser(1 + (index * 7919) % launchers)
        async let addresses = call(Social.GetAddresses.self, Empty(), as: user)
        async let favourites = call(Social.ListFavourites.self, PageRequest(), as: user)
        async let friends = call(Social.ListFriends.self, PageRequest(), as: user)
        let (_, wishes, people) = try await (addresses, favourites, friends)
        if index == 0, wishes.items.isEmpty || people.items.isEmpty {
            throw ServiceError(.internal, "a launch user has no favourites or no friends: the seed did not take")
        }
    }
}

/// A small deterministic generator (SplitMix64), so every run asks the same things.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
    mutating func next() -> UInt64 {
        state = state &+ 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Requests sent at a fixed rate whatever the answers do (open loop); each latency counts from
/// when the request was due.
struct OpenLoop: Sendable {
    let rate: Int
    let seconds: Int

    func run(_ name: String, _ work: @escaping @Sendable (Int) async throws -> Void) async throws {
        // A short warm-up at the same rate (connections, plans, caches), not counted.
        try await timed(count: max(1, rate / 2), work, report: nil)
        try await timed(count: rate * seconds, work, report: name)
    }

    private func timed(count: Int, _ work: @escaping @Sendable (Int) async throws -> Void, report: String?)
        async throws
    {
        let interval = Duration.nanoseconds(1_000_000_000 / Int64(rate))
        let start = ContinuousClock.now + .milliseconds(50)
        let latencies = Collected<Double>()
        let failures = Collected<String>()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                let due = start + interval * index
                try? await Task.sleep(until: due)
                group.addTask {
                    do {
                        try await work(index)
                        let ms = Self.ms(ContinuousClock.now - due)
                        latencies.add(ms)
                    } catch {
                        failures.add("\(error)")
                    }
                }
            }
        }
        guard let report else { return }
        let times = latencies.values().sorted()
        let failed = failures.values()
        let elapsed = Self.ms(ContinuousClock.now - start) / 1000
        print(
            report
                + String(
                    format: " at %d/s for %d s: %d answered in %.1f s (%.0f/s), p50 %.2f ms, p99 %.2f ms, max %.1f ms, %d errors",
                    rate, seconds, times.count, elapsed, Double(times.count) / elapsed,
                Self.percentile(times, 0.5), Self.percentile(times, 0.99), times.last ?? 0, failed.count))
        for message in Set(failed).prefix(5) { print("  error: \(message)") }
    }

    /// A duration in milliseconds.
    static func ms(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
    }

    static func percentile(_ sorted: [Double], _ share: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * share).rounded(.up)) - 1)]
    }
}

/// Values collected by the requests in flight.
final class Collected<Value: Sendable>: Sendable {
    private let items = Mutex<[Value]>([])
    func add(_ value: Value) { items.withLock { $0.append(value) } }
    func values() -> [Value] { items.withLock { $0 } }
}
