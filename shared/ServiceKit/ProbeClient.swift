import Logging
import Majordomo
import ZeroMQ

/// A short-lived MDP client for `--probe` and command-line checks.
public enum ProbeClient {
    /// Runs `body` with a connected bus client, then stops it.
    public static func call<T: Sendable>(
        environment: ProcessEnvironment, logger: Logger, _ body: @Sendable (BusClient) async throws -> T
    ) async throws -> T {
        let context = Context()
        let client = MajordomoClient(endpoint: try environment.required(.brokerURL), context: context, logger: logger)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try await client.run()
                return nil
            }
            defer { client.stop() }
            let result = try await body(BusClient(client: client, defaultTimeout: .seconds(3)))
            client.stop()
            try await group.waitForAll()
            return result
        }
    }
}
