import Foundation

/// How long the payment phases of placing an order may take before someone else steps in.
public struct PaymentTiming: Sendable, Hashable {
    /// How long after phase 1 an order still `pending_payment` is left to the request paying
    /// it; after that the recovery sweeper asks the provider what happened and finishes it.
    /// Must be longer than the provider's own timeout (with its retries).
    public var recoveryAfter: TimeInterval
    /// How long a request that finds its key's payment still running waits for the answer
    /// before it answers 409 `payment_in_progress` with `Retry-After`.
    public var inFlightWait: Duration
    /// How long a claimed payment step (a recovery, a capture, a void, a refund) is reserved
    /// for the replica that claimed it before another may take it.
    public var lease: TimeInterval
    /// How long a payment waiting for the buyer's 3-D Secure step may wait; then the sweeper
    /// asks the provider, and cancels it if it is still waiting.
    public var actionWindow: TimeInterval

    /// Timing with the service's defaults: recovery after 60 s, a 3 s wait, a 60 s lease, 15
    /// minutes for 3-D Secure.
    public init(
        recoveryAfter: TimeInterval = 60, inFlightWait: Duration = .seconds(3), lease: TimeInterval = 60,
        actionWindow: TimeInterval = 900
    ) {
        self.recoveryAfter = recoveryAfter
        self.inFlightWait = inFlightWait
        self.lease = lease
        self.actionWindow = actionWindow
    }
}
