import CommonContract
import Contract
import Foundation
import Synchronization

/// The sandbox provider's own record of its calls by idempotency key, as a processor keeps one:
/// in `orders.sandbox_payments` (``SandboxPaymentStore``; survives a crash of the process) or,
/// with no database, in memory for the life of the process.
public struct SandboxRecord: Sendable {
    /// One recorded call.
    struct Entry: Sendable, Hashable {
        let operation: String
        let outcome: PaymentOutcome
    }

    private enum Backing: Sendable {
        case stored(SandboxPaymentStore)
        case memory(Memory)
    }

    /// The in-process record.
    final class Memory: Sendable {
        let entries = Mutex<[String: Entry]>([:])
    }

    private let backing: Backing

    /// A durable record in `orders.sandbox_payments`.
    public static func stored(_ store: SandboxPaymentStore) -> SandboxRecord {
        SandboxRecord(backing: .stored(store))
    }

    /// A record in this process's memory.
    public static func memory() -> SandboxRecord { SandboxRecord(backing: .memory(Memory())) }

    /// The call recorded under `key`, if any.
    func find(_ key: String) async throws -> Entry? {
        switch backing {
        case .memory(let memory):
            return memory.entries.withLock { $0[key] }
        case .stored(let store):
            guard let found = try await store.find(key) else { return nil }
            return Entry(operation: found.operation, outcome: Self.outcome(found.outcome, reference: found.reference))
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
        case .stored(let store):
            let (outcome, reference): (String, String?) =
                switch entry.outcome {
                case .succeeded(let reference): ("ok", reference)
                case .declined(let declined): (declined.reason, nil)
                }
            try await store.insert(
                key: key, operation: entry.operation, outcome: outcome, reference: reference, amount: amount, now: now)
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
                reason: outcome, message: SandboxPaymentClient.messages[outcome] ?? "the card was declined"))
    }
}
