import AuthContract
import Contract
import Foundation
import HydrationContract
import Logging
import NotifyContract
import OrdersContract
import PrintingContract
import RoutingContract
import ServiceKit
import SocialContract
import Store

/// Turns events into notifications, in the consumer's transaction (so an event is handled once,
/// and its notification ids derive from the event id: a replay sends nothing new).
public struct Triggers: Sendable {
    let store: NotificationStore
    let logger: Logger

    /// Creates the triggers.
    public init(store: NotificationStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// The topics of auth's recovery mails and account deletion.
    public static let authTopics = [
        Auth.PasswordResetRequested.topic, Auth.UsernameReminderRequested.topic, Auth.AccountDeleted.topic,
    ]

    /// The generic triggers: topic → kind (every payload field that is a string or number
    /// becomes a variable; extra fields are harmless).
    public static let kinds: [String: Notify.Kind] = [
        Orders.OrderSucceeded.topic: Notify.Kind.orderSucceeded,
        Orders.OrderFailed.topic: Notify.Kind.orderFailed,
        Orders.OrderRefunded.topic: Notify.Kind.orderRefunded,
        Orders.OrderDisputed.topic: Notify.Kind.orderDisputed,
        Orders.GiftReceived.topic: Notify.Kind.giftReceived,
        Printing.Topic.jobFailed: Notify.Kind.printJobFailed,
        Printing.Topic.ecardFailed: Notify.Kind.printJobFailed,
        Routing.GoalCompleted.topic: Notify.Kind.goalCompleted,
        Social.Topic.friendRequested: Notify.Kind.friendRequest,
        Social.Topic.friendAccepted: Notify.Kind.friendAccepted,
    ]

    /// The topics of the other services' events.
    public static let serviceTopics =
        kinds.keys.sorted() + [
            Printing.ECardRendered.topic, Printing.Topic.jobMailed, Hydration.PlanChanged.topic,
            Routing.ClassChanged.topic, Routing.ClassReminder.topic,
        ]

    /// Handles one event.
    public func handle(_ event: StoredEvent, in tx: Transaction) async throws {
        let decoder = Wire.makeDecoder()
        let eventId = event.id.uuidString
        switch event.topic {
        case Auth.PasswordResetRequested.topic:
            let reset = try decoder.decode(Auth.PasswordResetRequested.self, from: event.payload)
            let expires = Date(timeIntervalSince1970: Double(reset.expiresAt) / 1000)
            try await submit(event, tx) {
                try Submission(
                    id: DerivedID.make(eventId), userId: UUID(uuidString: reset.userId), email: reset.email,
                    kind: Notify.Kind.passwordReset,
                    variables: [
                        "username": reset.username, "token": reset.token,
                        "expiresAt": MailMessage.rfc5322(expires),
                    ])
            }
        case Auth.UsernameReminderRequested.topic:
            let reminder = try decoder.decode(Auth.UsernameReminderRequested.self, from: event.payload)
            guard !reminder.usernames.isEmpty else { return }
            try await submit(event, tx) {
                try Submission(
                    id: DerivedID.make(eventId), userId: nil, email: reminder.email, kind: Notify.Kind.usernameReminder,
                    variables: ["usernames": reminder.usernames.joined(separator: ", ")])
            }
        case Auth.AccountDeleted.topic:
            let deleted = try decoder.decode(Auth.AccountDeleted.self, from: event.payload)
            if let userId = UUID(uuidString: deleted.userId) { try await store.forget(userId, in: tx) }
        case Hydration.PlanChanged.topic:
            let change = try decoder.decode(Hydration.PlanChanged.self, from: event.payload)
            try await ScheduleStore(notifications: store, logger: logger).applyPlan(change, in: tx)
        case Printing.ECardRendered.topic:
            let card = try decoder.decode(Printing.ECardRendered.self, from: event.payload)
            var variables = ["senderName": card.senderName, "imageUrl": card.imageUrl, "message": card.message]
            variables["imageToken"] = card.imageToken
            for (index, recipient) in card.recipients.enumerated() {
                try await submit(event, tx) {
                    try Submission(
                        id: DerivedID.make(eventId, "\(index)"), userId: nil, email: recipient, kind: Notify.Kind.ecard,
                        variables: variables)
                }
            }
        case Printing.Topic.jobMailed:
            let mailed = try decoder.decode(Printing.JobEvent.self, from: event.payload)
            try await submit(event, tx) { try OrderMailedNotice.submission(mailed) }
        case Routing.ClassChanged.topic:
            let change = try decoder.decode(Routing.ClassChanged.self, from: event.payload)
            var variables = [
                "module": change.moduleCode, "moduleName": change.moduleName, "classKind": change.classKind,
                "start": change.startLocal, "location": change.location,
            ]
            variables["newStart"] = change.newStartLocal
            variables["newLocation"] = change.newLocation
            let kind: Notify.Kind
            switch change.change {
            case Routing.ClassChanged.moved: kind = Notify.Kind.classMoved
            case Routing.ClassChanged.seriesMoved:
                kind = Notify.Kind.classSeriesMoved
                variables["from"] = String(change.startLocal.prefix(10))
            default: kind = Notify.Kind.classCancelled
            }
            try await submitToEach(change.userIds, event, tx, kind: kind, variables: variables)
        case Routing.ClassReminder.topic:
            let reminder = try decoder.decode(Routing.ClassReminder.self, from: event.payload)
            // A reminder pushed once the class has begun only disturbs: quiet hours that end after
            // the start, a retry or a backlog past it leave the inbox item alone.
            try await submitToEach(
                reminder.userIds, event, tx, kind: Notify.Kind.classReminder,
                variables: [
                    "module": reminder.moduleCode, "moduleName": reminder.moduleName, "classKind": reminder.classKind,
                    "start": reminder.startLocal, "location": reminder.location,
                ], notAfter: reminder.start)
        default:
            guard let kind = Self.kinds[event.topic] else { return }
            let object = try decoder.decode([String: JSONValue].self, from: event.payload)
            var variables: [String: String] = [:]
            for (key, value) in object {
                switch value {
                case .string(let text): variables[key] = text
                case .number(let number):
                    variables[key] = number == number.rounded() ? String(Int64(number)) : String(number)
                case .bool(let flag): variables[key] = String(flag)
                default: break
                }
            }
            guard let user = variables["userId"], let userId = UUID(uuidString: user) else {
                logger.warning(
                    "event without a userId; nothing sent",
                    metadata: ["topic": "\(event.topic)", "eventId": "\(eventId)"])
                return
            }
            try await submit(event, tx) {
                try Submission(
                    id: DerivedID.make(eventId), userId: userId, email: nil, kind: kind, variables: variables)
            }
        }
    }

    /// One notification per user of an event that names many (ids derived from the event's id and
    /// the user's, so a replay sends nobody a second one).
    func submitToEach(
        _ userIds: [String], _ event: StoredEvent, _ tx: Transaction, kind: Notify.Kind,
        variables: [String: String], notAfter: Date? = nil
    ) async throws {
        for user in userIds {
            guard let userId = UUID(uuidString: user) else { continue }
            try await submit(event, tx) {
                try Submission(
                    id: DerivedID.make(event.id.uuidString, userId.uuidString.lowercased()), userId: userId,
                    email: nil, kind: kind, variables: variables, notAfter: notAfter)
            }
        }
    }

    /// A submission refused for its content is logged and dropped (retrying cannot mend it).
    func submit(
        _ event: StoredEvent, _ tx: Transaction, _ make: () throws -> Submission
    ) async throws {
        do {
            _ = try await store.submit(try make(), in: tx)
        } catch let error as ServiceError where error.code == .invalidArgument || error.code == .conflict {
            logger.warning(
                "event could not become a notification",
                metadata: [
                    "topic": "\(event.topic)", "eventId": "\(event.id)", "error": "\(SafeErrorDescription.of(error))",
                ])
        }
    }
}
