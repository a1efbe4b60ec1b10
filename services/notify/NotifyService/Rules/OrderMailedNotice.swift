import Contract
import Foundation
import NotifyContract
import PrintingContract

/// "Your postcard is on its way": the notice of an order whose cards are all in the post. Its id
/// derives from the order, not from the event, so the order gets one notice whatever brings
/// `printing.job_mailed` again (a replay, a retried handler, a second event for the order).
public enum OrderMailedNotice {
    /// The notice's id for order `orderId` (compared without case, as order ids are UUIDs).
    public static func id(orderId: String) -> UUID {
        DerivedID.make(Notify.Kind.orderMailed.rawValue, orderId.lowercased())
    }

    /// The submission for `mailed`: to its owner, on the kind's channels (push, inbox, and e-mail
    /// unless the owner opted out); `invalid_argument` without a user or an order id.
    public static func submission(_ mailed: Printing.JobEvent) throws(ServiceError) -> Submission {
        guard let user = mailed.userId.flatMap(UUID.init(uuidString:)) else {
            throw ServiceError.invalidArgument("the event names no user", field: "userId")
        }
        return try Submission(
            id: id(orderId: mailed.orderId), userId: user, email: nil, kind: Notify.Kind.orderMailed,
            variables: ["orderId": mailed.orderId.lowercased()])
    }
}
