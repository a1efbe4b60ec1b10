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
