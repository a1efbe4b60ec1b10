import AuthContract
import Contract
import Foundation
import NotifyContract
import ServiceKit

/// Notifications asked for by services (and admins), and each account's inbox, preferences and
/// delivery log.
public struct NotificationHandler: Sendable {
    let store: NotificationStore
    let submitted: @Sendable () -> Void

    /// A handler over `store`; `submitted` is called after a new notification (it wakes the deliverer).
    public init(store: NotificationStore, submitted: @escaping @Sendable () -> Void) {
        self.store = store
        self.submitted = submitted
    }

    /// `send`: for services (no actor) and admins.
    public func send(_ request: Notify.Send.Request, _ context: OperationContext) async throws -> Notify.Send.Reply {
        if context.metadata.actor != nil { _ = try context.requireRole(Auth.Role.admin) }
        let reply = try await store.submit(try Submission(request))
        if reply.created { submitted() }
        return reply
    }

    /// `list_inbox`: a page of the caller's inbox.
    public func inbox(_ request: Notify.ListInbox.Request, _ context: OperationContext) async throws
        -> Notify.ListInbox.Reply
    {
        try await store.inbox(of: try context.userId(), request)
    }

    /// `mark_read`: marks one of the caller's notifications read; the unread count after it.
    public func markRead(_ request: Notify.MarkRead.Request, _ context: OperationContext) async throws
        -> Notify.MarkRead.Reply
    {
        .init(unreadCount: try await store.markRead(request.notificationId, of: try context.userId()))
    }

    /// `get_preferences`: the caller's preferences.
    public func preferences(_ context: OperationContext) async throws -> Notify.Preferences {
        try await store.preferences(of: try context.userId())
    }

    /// `set_preferences`: replaces the caller's preferences.
    public func setPreferences(_ request: Notify.Preferences, _ context: OperationContext) async throws
        -> Notify.Preferences
    {
        try await store.setPreferences(request, of: try context.userId())
    }

    /// `list_deliveries`: the delivery log of the caller's notifications.
    public func deliveries(_ context: OperationContext) async throws -> Notify.ListDeliveries.Reply {
        .init(deliveries: try await store.deliveries(of: try context.userId()))
    }
}
