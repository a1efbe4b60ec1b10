import AuthContract
import Contract
import ServiceKit

/// `/v1/auth/...`: accounts and sessions, answered by the `auth` service.
extension GatewayAPI {
    func register(_ input: Operations.Register.Input) async throws -> Operations.Register.Output {
        guard case .json(let body) = input.body else {
            throw ServiceError(.invalidArgument, "send the account as application/json")
        }
        let reply = try await callOpenly(
            Auth.Register.self,
            .init(username: body.username, password: body.password, email: body.email, phone: body.phone))
        return .created(.init(body: .json(.init(userId: reply.userId))))
    }
}

extension GatewayAPI {
    func login(_ input: Operations.Login.Input) async throws -> Operations.Login.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let session = try await callOpenly(
            Auth.Login.self, .init(username: body.username, password: body.password))
        return .ok(.init(body: .json(.init(session))))
    }

    func refresh(_ input: Operations.Refresh.Input) async throws -> Operations.Refresh.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let session = try await callOpenly(
            Auth.Refresh.self, .init(refreshToken: body.refreshToken))
        return .ok(.init(body: .json(.init(session))))
    }

    func logout(_ input: Operations.Logout.Input) async throws -> Operations.Logout.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        _ = try await callOpenly(
            Auth.Logout.self, .init(refreshToken: body.refreshToken))
        return .noContent(.init())
    }

    func getJWKS(_ input: Operations.GetJWKS.Input) async throws -> Operations.GetJWKS.Output {
        let set = try await callOpenly(
            Auth.JWKS.self, Empty())
        return .ok(
            .init(
                body: .json(
                    .init(
                        keys: set.keys.map {
                            .init(kty: $0.kty, crv: $0.crv, x: $0.x, kid: $0.kid, alg: $0.alg, use: $0.use)
                        }))))
    }
}

extension Components.Schemas.Session {
    init(_ session: Auth.Session) {
        self.init(accessToken: session.accessToken, refreshToken: session.refreshToken, expiresIn: session.expiresIn)
    }
}

extension GatewayAPI {
}

/// `/v1/me/...`: the caller's own account.
extension GatewayAPI {
    func updateMe(_ input: Operations.UpdateMe.Input) async throws -> Operations.UpdateMe.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let profile = try await callAsCaller(
            Auth.UpdateProfile.self,
            .init(username: body.username, email: body.email, phone: body.phone, displayName: body.displayName))
        return .ok(.init(body: .json(.init(profile))))
    }

    func deleteMe(_ input: Operations.DeleteMe.Input) async throws -> Operations.DeleteMe.Output {
        _ = try await callAsCaller(Auth.DeleteAccount.self, Empty())
        return .noContent(.init())
    }

    func changePassword(_ input: Operations.ChangePassword.Input) async throws -> Operations.ChangePassword.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let session = try await callAsCaller(
            Auth.ChangePassword.self, .init(currentPassword: body.currentPassword, newPassword: body.newPassword))
        return .ok(.init(body: .json(.init(session))))
    }

    func listDevices(_ input: Operations.ListDevices.Input) async throws -> Operations.ListDevices.Output {
        let reply = try await callAsCaller(
            Auth.ListDevices.self, .init(cursor: input.query.cursor, limit: input.query.limit))
        return .ok(
            .init(
                body: .json(.init(items: reply.items.map(Components.Schemas.Device.init), nextCursor: reply.nextCursor))
            ))
    }

    func registerDevice(_ input: Operations.RegisterDevice.Input) async throws -> Operations.RegisterDevice.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        var environment: Auth.APNsEnvironment?
        if let raw = body.apnsEnvironment {
            guard let known = Auth.APNsEnvironment(rawValue: raw) else {
                throw ServiceError.invalidArgument(
                    "apnsEnvironment must be sandbox or production, not '\(raw)'", field: "apnsEnvironment")
            }
            environment = known
        }
        let reply = try await callAsCaller(
            Auth.RegisterDevice.self,
            .init(
                token: body.token, platform: body.platform.rawValue, osVersion: body.osVersion, app: body.app,
                apnsEnvironment: environment))
        let device = Components.Schemas.Device(reply.device)
        return reply.created ? .created(.init(body: .json(device))) : .ok(.init(body: .json(device)))
    }

    func removeDevice(_ input: Operations.RemoveDevice.Input) async throws -> Operations.RemoveDevice.Output {
        _ = try await callAsCaller(Auth.RemoveDevice.self, .init(deviceId: input.path.deviceId))
        return .noContent(.init())
    }

    func grantRoles(_ input: Operations.GrantRoles.Input) async throws -> Operations.GrantRoles.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        // auth checks the admin role; the gateway only requires a caller.
        let profile = try await callAsCaller(
            Auth.GrantRoles.self,
            .init(
                userId: input.path.userId, grant: (body.grant ?? []).map(\.rawValue),
                revoke: (body.revoke ?? []).map(\.rawValue)))
        return .ok(.init(body: .json(.init(profile))))
    }
}

/// Recovery by e-mail: the same 202 whatever happened.
extension GatewayAPI {
    static let accepted = Components.Schemas.Accepted(
        status: .accepted, message: "If an account matches, an e-mail is on its way.")

    func requestPasswordReset(_ input: Operations.RequestPasswordReset.Input) async throws
        -> Operations.RequestPasswordReset.Output
    {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        _ = try await callOpenly(
            Auth.RequestPasswordReset.self, .init(username: body.username, email: body.email))
        return .accepted(.init(body: .json(Self.accepted)))
    }

    func confirmPasswordReset(_ input: Operations.ConfirmPasswordReset.Input) async throws
        -> Operations.ConfirmPasswordReset.Output
    {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        _ = try await callOpenly(
            Auth.ConfirmPasswordReset.self, .init(token: body.token, newPassword: body.newPassword))
        return .noContent(.init())
    }

    func requestUsernameReminder(_ input: Operations.RequestUsernameReminder.Input) async throws
        -> Operations.RequestUsernameReminder.Output
    {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        _ = try await callOpenly(
            Auth.RequestUsernameReminder.self, .init(email: body.email))
        return .accepted(.init(body: .json(Self.accepted)))
    }
}

extension Components.Schemas.Profile {
    init(_ profile: Auth.Profile) {
        self.init(
            userId: profile.userId, username: profile.username, email: profile.email, phone: profile.phone,
            displayName: profile.displayName, roles: profile.roles)
    }
}

extension Components.Schemas.Device {
    init(_ device: Auth.Device) {
        self.init(
            deviceId: device.deviceId, token: device.token, platform: device.platform, osVersion: device.osVersion,
            app: device.app, apnsEnvironment: .init(rawValue: device.apnsEnvironment.rawValue) ?? .production)
    }
}
