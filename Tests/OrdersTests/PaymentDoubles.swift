import CommonContract
import Contract
import Foundation
import Logging
import PostgresNIO
import Synchronization

@testable import OrdersService

/// A provider call that did not answer (a timeout, a 5xx, the process killed mid-call).
struct ProviderSilent: Error {}

/// The sandbox with one fault: the call `operation` fails before it reaches the sandbox
/// (nothing recorded there) or after (the sandbox recorded it, we never heard).
struct FaultyProvider: PaymentProvider {
    enum Fault: Sendable, Hashable, CustomStringConvertible {
        case before(String)
        case after(String)
        var description: String {
            switch self {
            case .before(let operation): "before \(operation)"
            case .after(let operation): "after \(operation)"
            }
        }
    }

    let sandbox: SandboxPaymentClient
    let fault: Fault
    var name: String { sandbox.name }

    func around(_ operation: String, _ call: () async throws -> String) async throws -> String {
        if fault == .before(operation) { throw ProviderSilent() }
        let answer: String
        do {
            answer = try await call()
        } catch {
            // The sandbox recorded its refusal; the answer is lost all the same.
            if fault == .after(operation) { throw ProviderSilent() }
            throw error
        }
        if fault == .after(operation) { throw ProviderSilent() }
        return answer
    }

    func tokenize(_ card: CardDetails, now: Date) async throws -> TokenizedCard {
        try await sandbox.tokenize(card, now: now)
    }
    func authorize(token: String, amount: Money, idempotencyKey: String) async throws -> String {
        try await around("authorize") {
            try await sandbox.authorize(token: token, amount: amount, idempotencyKey: idempotencyKey)
        }
    }
    func capture(authorization: String, amount: Money, idempotencyKey: String) async throws -> String {
        try await around("capture") {
            try await sandbox.capture(authorization: authorization, amount: amount, idempotencyKey: idempotencyKey)
        }
    }
    func void(authorization: String, idempotencyKey: String) async throws -> String {
        try await around("void") {
            try await sandbox.void(authorization: authorization, idempotencyKey: idempotencyKey)
        }
    }
    func refund(authorization: String, amount: Money, idempotencyKey: String) async throws -> String {
        try await around("refund") {
            try await sandbox.refund(authorization: authorization, amount: amount, idempotencyKey: idempotencyKey)
        }
    }
    func outcome(of idempotencyKey: String) async throws -> PaymentOutcome? {
        try await sandbox.outcome(of: idempotencyKey)
    }
}

/// The sandbox, checking at every money call that no transaction of the caller is open on the
/// order: from another connection it reads the order (so phase 1 has committed) and locks its
/// row and its key's row with `NOWAIT` (which fails at once if any transaction still holds
/// them). Each call is written down as `operation state` or `operation LOCKED`.
final class ProbingProvider: PaymentProvider {
    let sandbox: SandboxPaymentClient
    let client: PostgresClient
    let seen = Mutex<[String]>([])
    let keys = Mutex<[String]>([])
    var name: String { sandbox.name }

    init(sandbox: SandboxPaymentClient, client: PostgresClient) {
        self.sandbox = sandbox
        self.client = client
    }

    func probe(_ operation: String, key: String) async {
        keys.withLock { $0.append(key) }
        let parts = key.split(separator: "-")
        guard parts.count == 7, let order = UUID(uuidString: parts[1...5].joined(separator: "-")) else {
            seen.withLock { $0.append("\(operation) BAD KEY") }
            return
        }
        var logger = Logger(label: "probe")
        logger.logLevel = .critical
        do {
            let state = try await client.withTransaction(logger: logger) { connection in
                var state = "MISSING"
                let rows = try await connection.query(
                    "SELECT state FROM orders.orders WHERE id = \(order) FOR UPDATE NOWAIT", logger: logger)
                for try await found in rows.decode(String.self) { state = found }
                try await connection.query(
                    "SELECT 1 FROM orders.idempotency_keys WHERE order_id = \(order) FOR UPDATE NOWAIT", logger: logger)
                return state
            }
            seen.withLock { $0.append("\(operation) \(state)") }
        } catch {
            seen.withLock { $0.append("\(operation) LOCKED") }
        }
    }

    func tokenize(_ card: CardDetails, now: Date) async throws -> TokenizedCard {
        try await sandbox.tokenize(card, now: now)
    }
    func authorize(token: String, amount: Money, idempotencyKey: String) async throws -> String {
        await probe("authorize", key: idempotencyKey)
        return try await sandbox.authorize(token: token, amount: amount, idempotencyKey: idempotencyKey)
    }
    func capture(authorization: String, amount: Money, idempotencyKey: String) async throws -> String {
        await probe("capture", key: idempotencyKey)
        return try await sandbox.capture(authorization: authorization, amount: amount, idempotencyKey: idempotencyKey)
    }
    func void(authorization: String, idempotencyKey: String) async throws -> String {
        await probe("void", key: idempotencyKey)
        return try await sandbox.void(authorization: authorization, idempotencyKey: idempotencyKey)
    }
    func refund(authorization: String, amount: Money, idempotencyKey: String) async throws -> String {
        await probe("refund", key: idempotencyKey)
        return try await sandbox.refund(authorization: authorization, amount: amount, idempotencyKey: idempotencyKey)
    }
    func outcome(of idempotencyKey: String) async throws -> PaymentOutcome? {
        try await sandbox.outcome(of: idempotencyKey)
    }
}

/// The sandbox with an authorization that waits until the test opens the gate.
final class GatedProvider: PaymentProvider {
    let sandbox: SandboxPaymentClient
    let entered: AsyncStream<Void>
    let enter: AsyncStream<Void>.Continuation
    let gate: AsyncStream<Void>
    let open: AsyncStream<Void>.Continuation
    var name: String { sandbox.name }

    init(sandbox: SandboxPaymentClient) {
        self.sandbox = sandbox
        (entered, enter) = AsyncStream.makeStream(of: Void.self)
        (gate, open) = AsyncStream.makeStream(of: Void.self)
    }

    func tokenize(_ card: CardDetails, now: Date) async throws -> TokenizedCard {
        try await sandbox.tokenize(card, now: now)
    }
    func authorize(token: String, amount: Money, idempotencyKey: String) async throws -> String {
        enter.yield()
        for await _ in gate { break }
        return try await sandbox.authorize(token: token, amount: amount, idempotencyKey: idempotencyKey)
    }
    func capture(authorization: String, amount: Money, idempotencyKey: String) async throws -> String {
        try await sandbox.capture(authorization: authorization, amount: amount, idempotencyKey: idempotencyKey)
    }
    func void(authorization: String, idempotencyKey: String) async throws -> String {
        try await sandbox.void(authorization: authorization, idempotencyKey: idempotencyKey)
    }
    func refund(authorization: String, amount: Money, idempotencyKey: String) async throws -> String {
        try await sandbox.refund(authorization: authorization, amount: amount, idempotencyKey: idempotencyKey)
    }
    func outcome(of idempotencyKey: String) async throws -> PaymentOutcome? {
        try await sandbox.outcome(of: idempotencyKey)
    }
}

/// The sandbox refusing every capture (an authorization that expired at the processor).
struct RefusingCaptures: PaymentProvider {
    let sandbox: SandboxPaymentClient
    var name: String { sandbox.name }

    func tokenize(_ card: CardDetails, now: Date) async throws -> TokenizedCard {
        try await sandbox.tokenize(card, now: now)
    }
    func authorize(token: String, amount: Money, idempotencyKey: String) async throws -> String {
        try await sandbox.authorize(token: token, amount: amount, idempotencyKey: idempotencyKey)
    }
    func capture(authorization: String, amount: Money, idempotencyKey: String) async throws -> String {
        throw PaymentDeclined(reason: "card_declined", message: "the authorization has expired")
    }
    func void(authorization: String, idempotencyKey: String) async throws -> String {
        try await sandbox.void(authorization: authorization, idempotencyKey: idempotencyKey)
    }
    func refund(authorization: String, amount: Money, idempotencyKey: String) async throws -> String {
        try await sandbox.refund(authorization: authorization, amount: amount, idempotencyKey: idempotencyKey)
    }
    func outcome(of idempotencyKey: String) async throws -> PaymentOutcome? {
        try await sandbox.outcome(of: idempotencyKey)
    }
}

/// The sandbox refusing every refund (a charge disputed or already refunded at the processor).
struct RefusingRefunds: PaymentProvider {
    let sandbox: SandboxPaymentClient
    var name: String { sandbox.name }

    func tokenize(_ card: CardDetails, now: Date) async throws -> TokenizedCard {
        try await sandbox.tokenize(card, now: now)
    }
    func authorize(token: String, amount: Money, idempotencyKey: String) async throws -> String {
        try await sandbox.authorize(token: token, amount: amount, idempotencyKey: idempotencyKey)
    }
    func authorizeAndCapture(token: String, amount: Money, idempotencyKey: String) async throws -> String? {
        try await sandbox.authorizeAndCapture(token: token, amount: amount, idempotencyKey: idempotencyKey)
    }
    func capture(authorization: String, amount: Money, idempotencyKey: String) async throws -> String {
        try await sandbox.capture(authorization: authorization, amount: amount, idempotencyKey: idempotencyKey)
    }
    func void(authorization: String, idempotencyKey: String) async throws -> String {
        try await sandbox.void(authorization: authorization, idempotencyKey: idempotencyKey)
    }
    func refund(authorization: String, amount: Money, idempotencyKey: String) async throws -> String {
        throw PaymentDeclined(reason: "processing_error", message: "the charge is disputed")
    }
    func outcome(of idempotencyKey: String) async throws -> PaymentOutcome? {
        try await sandbox.outcome(of: idempotencyKey)
    }
}
