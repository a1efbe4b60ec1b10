import AccessToken
import AuthContract
import Contract
import Foundation
import JWTKit
import ServiceKit
import ServiceLifecycle
import Store
import Synchronization

/// Verifies access tokens in the gateway with the public keys `auth` publishes (its `jwks`
/// operation), so most requests never ask `auth`. Keys are fetched at start (``prefetch()``), on
/// first use if that failed, and again when a token names a key the gateway does not know yet
/// (at most once every 5 seconds). Concurrent requests share one fetch. When the keys cannot be
/// fetched (auth down or too busy to answer in time) the request fails `unavailable` (503, retry)
/// rather than telling the caller its token is bad.
///
/// Tokens that verified are remembered until they expire (at most ``verifiedCapacity``; apps
/// send the same token with every request for its 15 minutes), so a repeat costs a dictionary
/// lookup instead of an EdDSA check. The memory is dropped whenever the keys are fetched again.
actor AccessTokenVerifier {
    /// How many verified tokens are remembered at most.
    static let verifiedCapacity = 10_000
    private let verified = Mutex<[String: AccessClaims]>([:])
    private let bus: BusClient
    private let clock: any WallClock
    private let fetchTimeout: Duration
    private var keys: JWTKeyCollection?
    private var lastFetch: ContinuousClock.Instant?
    private var inFlight: Task<JWTKeyCollection, any Error>?

    init(bus: BusClient, clock: any WallClock = SystemClock(), fetchTimeout: Duration = .seconds(5)) {
        self.bus = bus
        self.clock = clock
        self.fetchTimeout = fetchTimeout
    }

    /// The caller a valid token names; `unauthenticated` otherwise, `unavailable` when the keys
    /// cannot be had.
    nonisolated func actor(for token: String) async throws(ServiceError) -> Actor {
        let now = clock.now()
        if let claims = verified.withLock({ $0[token] }) {
            guard claims.exp.value > now else {
                verified.withLock { _ = $0.removeValue(forKey: token) }
                throw ServiceError(.unauthenticated, "the access token has expired")
            }
            return Actor(userId: claims.sub.value, roles: claims.roles)
        }
        let claims: AccessClaims
        do {
            claims = try await verify(token)
        } catch let error as ServiceError {
            throw error
        } catch {
            throw ServiceError(.unauthenticated, "the access token is not valid")
        }
        guard claims.exp.value > now else {
            throw ServiceError(.unauthenticated, "the access token has expired")
        }
        remember(token, claims, now: now)
        return Actor(userId: claims.sub.value, roles: claims.roles)
    }

    /// Keeps a verified token; when full, forgets the expired ones, or all if none has expired.
    private nonisolated func remember(_ token: String, _ claims: AccessClaims, now: Date) {
        verified.withLock { tokens in
            if tokens.count >= Self.verifiedCapacity {
                tokens = tokens.filter { $0.value.exp.value > now }
                if tokens.count >= Self.verifiedCapacity { tokens.removeAll(keepingCapacity: true) }
            }
            tokens[token] = claims
        }
    }

    /// How many verified tokens are remembered (for tests).
    nonisolated var rememberedCount: Int { verified.withLock { $0.count } }

    /// Fetches the keys until it succeeds (at start, so that the first requests find them).
    func prefetch() async {
        while keys == nil, !Task.isCancelled {
            do {
                _ = try await currentKeys(refresh: false)
            } catch {
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    private func verify(_ token: String) async throws -> AccessClaims {
        let known = try await currentKeys(refresh: false)
        do {
            return try await known.verify(token, as: AccessClaims.self)
        } catch {
            // Perhaps signed with a key auth added since; look again, but not for every bad token.
            if let lastFetch, ContinuousClock.now - lastFetch <= .seconds(5) { throw error }
            return try await currentKeys(refresh: true).verify(token, as: AccessClaims.self)
        }
    }

    /// The keys held, or freshly fetched ones (one fetch at a time, shared by every waiter).
    private func currentKeys(refresh: Bool) async throws(ServiceError) -> JWTKeyCollection {
        if !refresh, let keys { return keys }
        let task: Task<JWTKeyCollection, any Error>
        if let inFlight {
            task = inFlight
        } else {
            let (bus, timeout) = (bus, fetchTimeout)
            task = Task { try await Self.fetch(bus: bus, timeout: timeout) }
            inFlight = task
        }
        do {
            let fetched = try await task.value
            if inFlight == task {
                inFlight = nil
                if keys != nil { verified.withLock { $0.removeAll() } }
                keys = fetched
                lastFetch = ContinuousClock.now
            }
            return fetched
        } catch {
            if inFlight == task { inFlight = nil }
            throw ServiceError(
                .unavailable, "the gateway could not get the token keys from auth; retry shortly",
                details: ["cause": .string("\(error)")])
        }
    }

    private static func fetch(bus: BusClient, timeout: Duration) async throws -> JWTKeyCollection {
        let set = try await bus.call(
            Auth.JWKS.self, Empty(), metadata: RequestMetadata(requestId: "jwks-\(UUID().uuidString.lowercased())"),
            timeout: timeout)
        let json = String(decoding: try Wire.makeEncoder().encode(set), as: UTF8.self)
        let collection = JWTKeyCollection()
        try await collection.add(jwksJSON: json)
        return collection
    }
}

/// Fetches the token keys once the gateway starts (retrying until auth answers), then waits for
/// shutdown: a lifecycle service, so it ends with the process.
struct TokenKeyPrefetch: Service {
    let verifier: AccessTokenVerifier

    func run() async throws {
        await cancelWhenGracefulShutdown { await verifier.prefetch() }
        try? await gracefulShutdown()
    }
}
