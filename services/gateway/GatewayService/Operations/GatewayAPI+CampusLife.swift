import Contract
import Foundation
import OpenAPIRuntime
import RoutingContract
import ServiceKit

/// NavUP's campus life, answered by `routing`: events, pins, weekly goals and reward vouchers.
extension GatewayAPI {
    func listCampusEvents(_ input: Operations.ListCampusEvents.Input) async throws
        -> Operations.ListCampusEvents.Output
    {
        let reply = try await callOpenly(
            Routing.ListEvents.self,
            .init(
                kind: input.query.kind?.rawValue, venueId: input.query.venueId, before: input.query.before,
                limit: input.query.limit, cursor: input.query.cursor))
        return .ok(
            .init(
                body: .json(
                    .init(
                        items: reply.items.map(Components.Schemas.CampusEvent.init), nextCursor: reply.nextCursor))))
    }

    func createCampusEvent(_ input: Operations.CreateCampusEvent.Input) async throws
        -> Operations.CreateCampusEvent.Output
    {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let event = try await callAsCaller(Routing.CreateEvent.self, Self.draft(body))
        return .created(.init(body: .json(.init(event))))
    }

    func updateCampusEvent(_ input: Operations.UpdateCampusEvent.Input) async throws
        -> Operations.UpdateCampusEvent.Output
    {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let event = try await callAsCaller(Routing.UpdateEvent.self, .init(id: input.path.id, event: Self.draft(body)))
        return .ok(.init(body: .json(.init(event))))
    }

    func deleteCampusEvent(_ input: Operations.DeleteCampusEvent.Input) async throws
        -> Operations.DeleteCampusEvent.Output
    {
        _ = try await callAsCaller(Routing.DeleteEvent.self, .init(id: input.path.id))
        return .noContent(.init())
    }

    func listPins(_ input: Operations.ListPins.Input) async throws -> Operations.ListPins.Output {
        let reply = try await callAsCaller(
            Routing.ListPins.self, .init(cursor: input.query.cursor, limit: input.query.limit))
        return .ok(
            .init(
                body: .json(.init(items: reply.items.map(Components.Schemas.Pin.init), nextCursor: reply.nextCursor))))
    }

    func savePin(_ input: Operations.SavePin.Input) async throws -> Operations.SavePin.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let pin = try await callAsCaller(
            Routing.SavePin.self,
            .init(lat: body.lat, lon: body.lon, level: body.level, description: body.description))
        return .created(.init(body: .json(.init(pin))))
    }

    func deletePin(_ input: Operations.DeletePin.Input) async throws -> Operations.DeletePin.Output {
        _ = try await callAsCaller(Routing.DeletePin.self, .init(id: input.path.id))
        return .noContent(.init())
    }

    func getMyGoals(_ input: Operations.GetMyGoals.Input) async throws -> Operations.GetMyGoals.Output {
        .ok(.init(body: .json(.init(try await callAsCaller(Routing.MyGoals.self, .init(week: input.query.week))))))
    }

    func reportActivity(_ input: Operations.ReportActivity.Input) async throws -> Operations.ReportActivity.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let week = try await callAsCaller(
            Routing.ReportActivity.self, .init(steps: body.steps, distance: body.distance, reportId: body.reportId))
        return .ok(.init(body: .json(.init(week))))
    }

    func createGoal(_ input: Operations.CreateGoal.Input) async throws -> Operations.CreateGoal.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        return .created(.init(body: .json(.init(try await callAsCaller(Routing.CreateGoal.self, Self.draft(body))))))
    }

    func updateGoal(_ input: Operations.UpdateGoal.Input) async throws -> Operations.UpdateGoal.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let goal = try await callAsCaller(Routing.UpdateGoal.self, .init(id: input.path.id, goal: Self.draft(body)))
        return .ok(.init(body: .json(.init(goal))))
    }

    func deleteGoal(_ input: Operations.DeleteGoal.Input) async throws -> Operations.DeleteGoal.Output {
        _ = try await callAsCaller(Routing.DeleteGoal.self, .init(id: input.path.id))
        return .noContent(.init())
    }

    static func draft(_ body: Components.Schemas.CampusEventDraft) -> Routing.EventDraft {
        Routing.EventDraft(
            title: body.title, kind: body.kind.rawValue, venueId: body.venueId, startsAt: body.startsAt,
            endsAt: body.endsAt, description: body.description, modules: body.modules, faculties: body.faculties)
    }

    static func draft(_ body: Components.Schemas.GoalDraft) -> Routing.GoalDraft {
        Routing.GoalDraft(
            title: body.title, metric: body.metric.rawValue, target: body.target, weekStart: body.weekStart,
            reward: body.reward)
    }
}

extension Components.Schemas.CampusEvent {
    init(_ event: Routing.CampusEvent) {
        self.init(
            id: event.id, title: event.title, kind: .init(rawValue: event.kind) ?? .cultural, venueId: event.venueId,
            venueName: event.venueName, startsAt: event.startsAt, endsAt: event.endsAt, description: event.description,
            modules: event.modules, faculties: event.faculties)
    }
}

extension Components.Schemas.Pin {
    init(_ pin: Routing.Pin) {
        self.init(
            id: pin.id, lat: pin.lat, lon: pin.lon, level: pin.level, description: pin.description,
            createdAt: pin.createdAt)
    }
}

extension Components.Schemas.Goal {
    init(_ goal: Routing.Goal) {
        self.init(
            id: goal.id, title: goal.title, metric: .init(rawValue: goal.metric) ?? .steps, target: goal.target,
            weekStart: goal.weekStart, reward: goal.reward)
    }
}

// A goal's voucher, in getMyGoals' reply.
extension Components.Schemas.Voucher {
    init(_ voucher: Routing.Voucher) {
        self.init(
            code: voucher.code, goalId: voucher.goalId, goal: voucher.goal, reward: voucher.reward,
            issuedAt: voucher.issuedAt, redeemedAt: voucher.redeemedAt)
    }
}

extension Components.Schemas.MyWeek {
    init(_ week: Routing.MyWeek) {
        self.init(
            weekStart: week.weekStart, weekStartsAt: week.weekStartsAt, weekEndsAt: week.weekEndsAt,
            steps: week.steps, distance: week.distance, venues: week.venues,
            lecturesAttended: week.lecturesAttended, goals: week.goals.map {
                .init(
                    goal: .init($0.goal), progress: $0.progress, completed: $0.completed,
                    voucher: $0.voucher.map { .init($0) })
            }, justCompleted: week.justCompleted)
    }
}
