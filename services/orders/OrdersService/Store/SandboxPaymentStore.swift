import CommonContract
import Contract
import Foundation
import Logging
import PostgresNIO
import Store

/// The sandbox provider's record of its calls (`orders.sandbox_payments`), by idempotency key,
/// so that it survives a crash of the process as a processor's own records do.
public struct SandboxPaymentStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// A store on `client`.
    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// The call recorded under `key`: its operation, outcome (`ok` or a decline's reason) and
    /// reference.
    func find(_ key: String) async throws -> (operation: String, outcome: String, reference: String?)? {
        let rows = try await client.fetch(
            "SELECT operation, outcome, reference FROM orders.sandbox_payments WHERE idempotency_key = \(key)",
            logger: logger)
        for try await (operation, outcome, reference) in rows.decode((String, String, String?).self) {
            return (operation, outcome, reference)
        }
        return nil
    }

    /// Records a call under `key` unless one was recorded under it first.
    func insert(
        key: String, operation: String, outcome: String, reference: String?, amount: Money?, now: Date
    ) async throws {
        try await client.fetch(
            """
            INSERT INTO orders.sandbox_payments
                (idempotency_key, operation, outcome, reference, amount, currency, created_at)
            VALUES (\(key), \(operation), \(outcome), \(reference), \(amount?.amount), \(amount?.currency),
                    \(now))
            ON CONFLICT (idempotency_key) DO NOTHING
            """, logger: logger)
    }
}
