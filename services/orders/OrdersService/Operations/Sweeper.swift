import Foundation
import Logging
import PostgresNIO
import ServiceKit
import ServiceLifecycle
import Store

/// Deletes idempotency keys and quotes past their expiry, once at start and then every
/// `interval`.
struct Sweeper: Service {
    let client: PostgresClient
    let clock: any WallClock
    let interval: Duration
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown { await loop() }
    }

    func loop() async {
        while !Task.isCancelled {
            do {
                let now = clock.now()
                try await client.fetch("DELETE FROM orders.idempotency_keys WHERE expires_at <= \(now)", logger: logger)
                try await client.fetch(
                    """
                    DELETE FROM orders.quotes q WHERE expires_at <= \(now) - interval '1 day'
                    AND NOT EXISTS (SELECT 1 FROM orders.orders o WHERE o.quote_id = q.id)
                    """, logger: logger)
            } catch {
                logger.warning("sweeping expired keys failed", metadata: ["error": "\(SafeErrorDescription.of(error))"])
            }
            try? await Task.sleep(for: interval)
        }
    }
}
