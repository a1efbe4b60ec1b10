import Logging
import Majordomo

/// A short-lived MDP client for `--probe` and command-line checks.
public enum ProbeClient {
    /// Runs `body` with a connected bus client, then stops it.
    public static func call<T: Sendable>(
        environment: ProcessEnvironment, logger: Logger, _ body: @Sendable (BusClient) async throws -> T
    ) async throws -> T {
        let client = MajordomoClient(try environment.brokerEndpoint(), logger: logger)
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

extension ProcessEnvironment {
    /// `BROKER_URL`, parsed: what a worker and its calls to other services connect to.
    public func brokerEndpoint() throws -> MajordomoClient.Endpoint {
        let text = try required(.brokerURL)
        guard let endpoint = MajordomoClient.Endpoint(text) else {
            throw InvalidSetting(name: Setting.brokerURL.name, value: text, expected: "tcp://HOST:PORT")
        }
        return endpoint
    }
}
