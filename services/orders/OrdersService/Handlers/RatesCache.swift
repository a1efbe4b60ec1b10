import Synchronization

/// The rates in force, re-read from the database at most every `ttl`, so that quotes and orders
/// do not each ask for them; a load through this process replaces them at once, other replicas
/// see them within `ttl`.
final class RatesCache: Sendable {
    private let entry = Mutex<(stored: RatesStore.Stored, at: ContinuousClock.Instant)?>(nil)
    /// How long a read stays fresh.
    let ttl: Duration

    init(ttl: Duration) { self.ttl = ttl }

    /// The newest rates, from memory while fresh.
    func current(from store: RatesStore) async throws -> RatesStore.Stored {
        if let cached = entry.withLock({ $0 }), ContinuousClock.now - cached.at < ttl { return cached.stored }
        let stored = try await store.current()
        entry.withLock { $0 = (stored, ContinuousClock.now) }
        return stored
    }

    /// Replaces the cached rates (after this process stored them).
    func replace(with stored: RatesStore.Stored) {
        entry.withLock { $0 = (stored, ContinuousClock.now) }
    }
}
