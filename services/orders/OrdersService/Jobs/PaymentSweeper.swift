import Foundation
import Logging
import ServiceKit
import ServiceLifecycle
import Store

/// Runs ``PaymentHandler/sweepPayments(limit:)`` at start and then every `interval` (and again at
/// once while a round found a full batch): it recovers orders a crash or a silent provider left
/// `pending_payment`, and makes the captures, voids and refunds that state changes call for;
/// then ``RefundHandler/sweepRefunds(limit:)`` finishes operators' refunds left pending.
struct PaymentSweeper: Service {
    let payments: PaymentHandler
    let refunds: RefundHandler
    let interval: Duration
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown { await loop() }
    }

    func loop() async {
        let batch = 100
        while !Task.isCancelled {
            do {
                while try await payments.sweepPayments(limit: batch) == batch, !Task.isCancelled {}
            } catch {
                logger.warning("sweeping payments failed", metadata: ["error": "\(SafeErrorDescription.of(error))"])
            }
            do {
                while try await refunds.sweepRefunds(limit: batch) == batch, !Task.isCancelled {}
            } catch {
                logger.warning("sweeping refunds failed", metadata: ["error": "\(SafeErrorDescription.of(error))"])
            }
            try? await Task.sleep(for: interval)
        }
    }
}
