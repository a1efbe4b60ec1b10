import Contract
import ServiceKit

/// `/v1/auth/...`: accounts and sessions, answered by the `auth` service.
extension GatewayAPI {
    func register(_ input: Operations.Register.Input) async throws -> Operations.Register.Output {
        guard case .json(let body) = input.body else {
            throw ServiceError(.invalidArgument, "send the account as application/json")
        }
        let reply = try await bus.call(
            Auth.Register.self,
            .init(username: body.username, password: body.password, email: body.email, phone: body.phone),
            metadata: try scope.metadata(deadline: settings.requestTimeout))
        return .created(.init(body: .json(.init(userId: reply.userId))))
    }
}

extension GatewayAPI {
    func login(_ input: Operations.Login.Input) async throws -> Operations.Login.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let session = try await bus.call(
            Auth.Login.self, .init(username: body.username, password: body.password),
            metadata: try scope.metadata(deadline: settings.requestTimeout))
        return .ok(.init(body: .json(.init(session))))
    }

    func refresh(_ input: Operations.Refresh.Input) async throws -> Operations.Refresh.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let session = try await bus.call(
            Auth.Refresh.self, .init(refreshToken: body.refreshToken),
            metadata: try scope.metadata(deadline: settings.requestTimeout))
        return .ok(.init(body: .json(.init(session))))
    }

    func logout(_ input: Operations.Logout.Input) async throws -> Operations.Logout.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        _ = try await bus.call(
            Auth.Logout.self, .init(refreshToken: body.refreshToken),
            metadata: try scope.metadata(deadline: settings.requestTimeout))
        return .noContent(.init())
    }

    func getJWKS(_ input: Operations.GetJWKS.Input) async throws -> Operations.GetJWKS.Output {
        let set = try await bus.call(
            Auth.JWKS.self, Empty(), metadata: try scope.metadata(deadline: settings.requestTimeout))
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
    func getMe(_ input: Operations.GetMe.Input) async throws -> Operations.GetMe.Output {
        let scope = try self.scope
        _ = try scope.requireActor()
        let profile = try await bus.call(
            Auth.GetProfile.self, Empty(), metadata: scope.metadata(deadline: settings.requestTimeout))
        return .ok(
            .init(
                body: .json(
                    .init(
                        userId: profile.userId, username: profile.username, email: profile.email, phone: profile.phone,
                        displayName: profile.displayName, roles: profile.roles))))
    }
}
