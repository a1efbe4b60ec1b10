import CivicContract
import Contract
import Foundation
import ServiceKit
import Store

/// The consumer `civic.push`: each `civic.bill_introduced` owes every subscribed device the bill
/// (``PushStore/owe(_:introducedAt:now:in:)``); when it owes any, the ``NewBillPusher`` is woken.
public struct OwedPushRecorder: Sendable {
    let pushes: PushStore
    let clock: any WallClock
    let nudge: AsyncStream<Void>.Continuation

    public init(pushes: PushStore, clock: any WallClock, nudge: AsyncStream<Void>.Continuation) {
        self.pushes = pushes
        self.clock = clock
        self.nudge = nudge
    }

    /// Handles one `civic.bill_introduced`, in the transaction that records it as handled.
    public func handle(_ event: StoredEvent, in tx: Transaction) async throws {
        let bill = try Wire.makeDecoder().decode(Civic.BillIntroduced.self, from: event.payload)
        let owed = try await pushes.owe(bill, introducedAt: event.createdAt, now: clock.now(), in: tx)
        if owed > 0 { nudge.yield() }
    }
}
