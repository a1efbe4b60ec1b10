import Contract
import Foundation
import ServiceKit

extension Result where Failure == ServiceError {
    /// The outcome of an async call with typed throws.
    init(catching body: () async throws(ServiceError) -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}

/// What notify asks auth about a user: an e-mail address and the devices, and which push tokens
/// to forget.
public protocol Directory: Sendable {
    /// The account's e-mail address, or nil (none on file, or the account is gone).
    func email(of userId: UUID) async throws -> String?
    /// The account's devices.
    func devices(of userId: UUID) async throws -> [Auth.Device]
    /// Tells auth that a provider rejected `token`.
    func forget(token: String) async throws
}

/// The ``Directory`` over the broker: auth's `get_profile` (as the user), `list_devices` and
/// `forget_device_token` (as a service, without an actor).
public struct AuthDirectory: Directory {
    let bus: BusClient

    /// Asks auth through `bus`.
    public init(bus: BusClient) { self.bus = bus }

    func metadata(_ actor: Actor? = nil) -> RequestMetadata {
        RequestMetadata(requestId: "notify-\(UUID().uuidString.lowercased())", actor: actor)
    }

    public func email(of userId: UUID) async throws -> String? {
        let actor = Actor(userId: userId.uuidString.lowercased(), roles: [Auth.Role.user])
        let result: Result<Auth.Profile, ServiceError> = await Result(catching: { () async throws(ServiceError) -> Auth.Profile in
            try await bus.call(Auth.GetProfile.self, Empty(), metadata: metadata(actor))
        })
        switch result {
        case .success(let profile): return profile.email
        case .failure(let error) where error.code == .notFound || error.code == .unauthenticated: return nil
        case .failure(let error): throw error
        }
    }

    public func devices(of userId: UUID) async throws -> [Auth.Device] {
        try await bus.call(Auth.ListDevices.self, .init(userId: userId.uuidString.lowercased()), metadata: metadata())
            .devices
    }

    public func forget(token: String) async throws {
        _ = try await bus.call(Auth.ForgetDeviceToken.self, .init(token: token), metadata: metadata())
    }
}
