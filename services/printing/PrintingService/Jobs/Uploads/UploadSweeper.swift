import Foundation
import Logging
import ServiceKit
import ServiceLifecycle
import Store

/// Deletes unfinished resumable uploads past their expiry (and their chunks), every `interval`.
struct UploadSweeper: Service {
    let store: UploadStore
    let clock: any WallClock
    let interval: Duration
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown { await loop() }
    }

    func loop() async {
        while !Task.isCancelled {
            do {
                let swept = try await store.sweep(now: clock.now())
                if swept > 0 { logger.info("expired uploads swept", metadata: ["count": "\(swept)"]) }
            } catch {
                logger.warning("sweeping uploads failed", metadata: ["error": "\(SafeErrorDescription.of(error))"])
            }
            try? await Task.sleep(for: interval)
        }
    }
}
