import Contract
import Foundation
import RoutingContract
import ServiceKit

/// Modules, class meetings, students' timetables and their feeds.
extension RoutingAPI {
    func registerTimetable(on router: inout OperationRouter) {
        router.register(Routing.ImportTimetable.self) { request, context in
            _ = try context.requireRole(.admin)
            return try await timetable.importTimetable(request, now: clock.now(), requestId: context.metadata.requestId)
        }
        router.register(Routing.ListModules.self) { _, context in
            _ = try context.requireRole(.admin)
            return .init(items: try await timetable.store.modules())
        }
        router.register(Routing.DeleteModule.self) { request, context in
            _ = try context.requireRole(.admin)
            try await timetable.deleteModule(request.code, now: clock.now(), requestId: context.metadata.requestId)
            return Empty()
        }
        router.register(Routing.SetMyModules.self) { request, context in
            try await timetable.setModules(request.codes, user: try context.userId())
        }
        router.register(Routing.MyTimetable.self) { request, context in
            try await timetable.timetable(user: try context.userId(), from: request.from, to: request.to, now: clock.now())
        }
        router.register(Routing.TimetableFeed.self) { request, _ in
            try await timetable.feed(secret: request.secret, now: clock.now())
        }
        router.register(Routing.MyEvents.self) { request, context in
            let limit = try Routing.MyEvents.pageSize.limit(request.limit)
            return try await timetable.myEvents(user: try context.userId(), events: events, now: clock.now(), limit: limit)
        }
        router.register(Routing.GetClassReminders.self) { _, context in
            .init(minutesBefore: try await timetable.store.reminderMinutes(of: try context.userId()))
        }
        router.register(Routing.SetClassReminders.self) { request, context in
            let user = try context.userId()
            if let minutes = request.minutesBefore,
                !(ClassReminders.minimumMinutes...ClassReminders.maximumMinutes).contains(minutes)
            {
                let range = "\(ClassReminders.minimumMinutes) to \(ClassReminders.maximumMinutes)"
                throw ServiceError.invalidArgument("minutesBefore is \(range), or null for none", field: "minutesBefore")
            }
            try await timetable.store.setReminderMinutes(request.minutesBefore, of: user, now: clock.now())
            return request
        }
        router.register(Routing.RevokeTimetableFeed.self) { _, context in
            try await timetable.revokeFeed(user: try context.userId())
            return Empty()
        }
    }
}

extension RoutingAPI {
    func registerNextClass(on router: inout OperationRouter) {
        router.register(Routing.NextClass.self) { request, context in
            let user = try context.userId()
            guard let profile = request.profile.map(RouteProfile.init(rawValue:)) ?? .fastest else {
                throw ServiceError(
                    .invalidArgument, "profile must be fastest, accessible or shortest", details: ["field": "profile"])
            }
            let from = try await point(request.from, field: "from")
            return try await timetable.nextClass(
                user: user, from: from, profile: profile, navigator: navigator, now: clock.now())
        }
    }
}
