import AccessToken
import Contract
import Foundation
import JWTKit
import ServiceKit
import Store

/// Verifies access tokens in the gateway with the public keys `auth` publishes (its `jwks`
/// operation), so most requests never ask `auth`. Keys are fetched on first use and again when
/// a token names a key the gateway does not know yet (at most once every 5 seconds).
actor AccessTokenVerifier {
    private let bus: BusClient
    private let clock: any WallClock
    private var keys: JWTKeyCollection?
    private var lastFetch: ContinuousClock.Instant?

    init(bus: BusClient, clock: any WallClock = SystemClock()) {
        self.bus = bus
        self.clock = clock
    }

    /// The caller a valid token names; `unauthenticated` otherwise.
    func actor(for token: String) async throws(ServiceError) -> Actor {
        let claims: AccessClaims
        do {
            claims = try await verify(token, refreshing: false)
        } catch {
            guard mayRefetch else { throw ServiceError(.unauthenticated, "the access token is not valid") }
            do {
                claims = try await verify(token, refreshing: true)
            } catch {
                throw ServiceError(.unauthenticated, "the access token is not valid")
            }
        }
        guard claims.exp.value > clock.now() else {
            throw ServiceError(.unauthenticated, "the access token has expired")
        }
        return Actor(userId: claims.sub.value, roles: claims.roles)
    }

    private var mayRefetch: Bool {
        guard let lastFetch else { return true }
        return ContinuousClock.now - lastFetch > .seconds(5)
    }

    private func verify(_ token: String, refreshing: Bool) async throws -> AccessClaims {
        if refreshing || keys == nil { try await fetch() }
        guard let keys else { throw ServiceError(.unavailable, "no token keys") }
        return try await keys.verify(token, as: AccessClaims.self)
    }

    private func fetch() async throws {
        lastFetch = ContinuousClock.now
        let set = try await bus.call(
            Auth.JWKS.self, Empty(), metadata: RequestMetadata(requestId: "jwks-\(UUID().uuidString.lowercased())"),
            timeout: .seconds(3))
        let json = String(decoding: try Wire.makeEncoder().encode(set), as: UTF8.self)
        let collection = JWTKeyCollection()
        try await collection.add(jwksJSON: json)
        keys = collection
    }
}
