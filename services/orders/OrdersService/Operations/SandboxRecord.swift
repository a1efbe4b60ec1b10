import Contract
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// The sandbox provider's own record of its calls by idempotency key, as a processor keeps one:
/// in `orders.sandbox_payments` (survives a crash of the process) or, with no database, in
/// memory for the life of the process.
public struct SandboxRecord: Sendable {
    /// One recorded call.
    struct Entry: Sendable, Hashable {
        let operation: String
        let outcome: PaymentOutcome
    }

    private enum Backing: Sendable {
        case postgres(PostgresClient, Logger)
        case memory(Memory)
    }

    /// The in-process record.
    final class Memory: Sendable {
        let entries = Mutex<[String: Entry]>([:])
    }

    private let backing: Backing

    /// A durable record in `orders.sandbox_payments`.
    public static func postgres(_ client: PostgresClient, logger: Logger) -> SandboxRecord {
        SandboxRecord(backing: .postgres(client, logger))
    }

    /// A record in this process's memory.
    public static func memory() -> SandboxRecord { SandboxRecord(backing: .memory(Memory())) }

    /// The call recorded under `key`, if any.
    func find(_ key: String) async throws -> Entry? {
        switch backing {
        case .memory(let memory):
            return memory.entries.withLock { $0[key] }
        case .postgres(let client, let logger):
            let rows = try await client.fetch(
                "SELECT operation, outcome, reference FROM orders.sandbox_payments WHERE idempotency_key = \(key)",
                logger: logger)
            for try await (operation, outcome, reference) in rows.decode((String, String, String?).self) {
                return Entry(operation: operation, outcome: Self.outcome(outcome, reference: reference))
            }
            return nil
        }
    }

    /// Records `entry` under `key` unless a call was recorded under it first; returns what is
    /// recorded (the first call's result wins).
    func record(_ entry: Entry, key: String, amount: Money?, now: Date) async throws -> Entry {
        switch backing {
        case .memory(let memory):
            return memory.entries.withLock { entries in
                if let earlier = entries[key] { return earlier }
                entries[key] = entry
                return entry
            }
        case .postgres(let client, let logger):
            let (outcome, reference): (String, String?) =
                switch entry.outcome {
                case .succeeded(let reference): ("ok", reference)
                case .declined(let declined): (declined.reason, nil)
                }
            try await client.fetch(
                """
                INSERT INTO orders.sandbox_payments
                    (idempotency_key, operation, outcome, reference, amount, currency, created_at)
                VALUES (\(key), \(entry.operation), \(outcome), \(reference), \(amount?.amount), \(amount?.currency),
                        \(now))
                ON CONFLICT (idempotency_key) DO NOTHING
                """, logger: logger)
            guard let stored = try await find(key) else {
                throw PaymentDeclined(reason: "processing_error", message: "the sandbox lost its record")
            }
            return stored
        }
    }

    static func outcome(_ outcome: String, reference: String?) -> PaymentOutcome {
        if outcome == "ok", let reference { return .succeeded(reference: reference) }
        return .declined(
            PaymentDeclined(
                reason: outcome, message: SandboxPaymentProvider.messages[outcome] ?? "the card was declined"))
    }
}
