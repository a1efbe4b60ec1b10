import Foundation
import Logging
import ServiceKit
import ServiceLifecycle
import Store

/// Deletes idempotency keys and quotes past their expiry, once at start and then every
/// `interval`.
struct ExpiredKeySweeper: Service {
    let keys: IdempotencyStore
    let quotes: QuoteStore
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
                try await keys.deleteExpired(now: now)
                try await quotes.deleteExpired(now: now)
            } catch {
                logger.warning("sweeping expired keys failed", metadata: ["error": "\(SafeErrorDescription.of(error))"])
            }
            try? await Task.sleep(for: interval)
        }
    }
}
