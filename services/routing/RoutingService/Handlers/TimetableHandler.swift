import Contract
import Foundation
import Logging
import RoutingContract
import ServiceKit
import Store

/// Modules, class meetings and students' timetables: imports, enrolment, the expanded
/// timetable and its private iCalendar feed.
public struct TimetableHandler: Sendable {
    public let store: TimetableStore
    let transactions: Transactions
    let venues: VenueStore
    let venueCache: VenueCache
    /// The zone of floating iCalendar times and of CSV times.
    public let campusZone: TimeZone
    /// The feed's address without the secret, e.g. `https://navup.example/v1/timetables`.
    public let feedBaseURL: String
    /// Students' next hours of classes (see ``OccurrenceMemo``).
    let memo = OccurrenceMemo()
    /// Modules' meetings and their next hours of occurrences, shared by their students (see
    /// ``ModuleMemo``).
    let moduleMemo = ModuleMemo()
    /// Where `routing.class_changed` events go (see ``ClassNotices``); nil: changes are not
    /// announced.
    let publisher: EventPublisher?
    let clock: any WallClock
    let logger: Logger

    /// Largest import file.
    public static let maximumImportBytes = 8 * 1024 * 1024
    /// Longest `from`...`to` of one timetable read.
    public static let maximumWindow: TimeInterval = 62 * 86_400
    /// The feed covers from this long ago...
    public static let feedPast: TimeInterval = 30 * 86_400
    /// ...to this far ahead.
    public static let feedAhead: TimeInterval = 180 * 86_400

    public init(
        store: TimetableStore, transactions: Transactions, venues: VenueStore, venueCache: VenueCache,
        campusZone: TimeZone, feedBaseURL: String, publisher: EventPublisher?, clock: any WallClock, logger: Logger
    ) {
        self.publisher = publisher
        self.clock = clock
        self.logger = logger
        self.store = store
        self.transactions = transactions
        self.venues = venues
        self.venueCache = venueCache
        self.campusZone = campusZone
        self.feedBaseURL = feedBaseURL.hasSuffix("/") ? String(feedBaseURL.dropLast()) : feedBaseURL
    }

    /// Parses and stores an import file; a format error is a 400 naming its line and field.
    public func importTimetable(_ request: Routing.ImportTimetable.Request, now: Date, requestId: String? = nil)
        async throws -> Routing.ImportTimetable.Reply
    {
        guard request.text.utf8.count <= Self.maximumImportBytes else {
            throw ServiceError.invalidArgument("the file is larger than 8 MiB", field: "body")
        }
        guard request.format == "ical" || request.format == "csv" else {
            throw ServiceError.invalidArgument("format is ical or csv", field: "format")
        }
        let parsed: ParsedTimetable
        do throws(TimetableFormatError) {
            parsed =
                request.format == "ical"
                ? try ICalendarParser(campusZone: campusZone).parse(request.text)
                : try TimetableCSV(campusZone: campusZone).parse(request.text)
        } catch {
            throw ServiceError(
                .invalidArgument, error.description,
                details: ["line": .number(Double(error.line)), "field": .string(error.field)])
        }
        for entry in parsed.entries where entry.location.count > 500 || (entry.moduleName?.count ?? 0) > 200 {
            throw ServiceError(
                .invalidArgument, "line \(entry.line): a location is at most 500 characters, a module name 200",
                details: ["line": .number(Double(entry.line)), "field": "LOCATION"])
        }
        // Matched before the transaction opens (the venues come from this replica's store).
        let all = try await venues.all()
        let index = Self.venueIndex(all)
        var matched: [String: UUID] = [:]
        var unmatched = Set<String>()
        for entry in parsed.entries where !entry.location.isEmpty {
            if let venue = Self.match(entry.location, in: index) {
                matched[entry.uid] = venue
            } else {
                unmatched.insert(entry.location)
            }
        }
        let notices = notices(venues: all, requestId: requestId)
        let (counts, stored) = try await transactions.run { tx in
            var before: [String: TimetableStore.Meeting] = [:]
            if notices != nil {
                before = try await store.meetings(uids: parsed.entries.map(\.uid) + parsed.cancelled, in: tx)
            }
            let counts = try await store.save(parsed, venues: matched, now: now, in: tx)
            guard let notices else { return (counts, [StoredEvent]()) }
            let after = parsed.entries.map { entry in
                ClassNotices.MeetingState(
                    uid: entry.uid, moduleCode: entry.moduleCode,
                    moduleName: entry.moduleName ?? before[entry.uid]?.moduleName ?? entry.moduleCode,
                    kind: entry.kind, schedule: entry.schedule, venueId: matched[entry.uid], location: entry.location)
            }
            let stored = try await notices.announce(
                before: ClassNotices.states(before), after: after, now: now, store: store, in: tx)
            return (counts, stored)
        }
        for event in stored { publisher?.announce(event) }
        forgetTimetable()
        return .init(
            modulesCreated: counts.modulesCreated, modulesUpdated: counts.modulesUpdated,
            meetingsCreated: counts.meetingsCreated, meetingsUpdated: counts.meetingsUpdated,
            meetingsUnchanged: counts.meetingsUnchanged, meetingsCancelled: counts.meetingsCancelled,
            unmatchedLocations: unmatched.sorted())
    }

    /// The announcer of changes, with venue names from `venues`; nil without a publisher.
    func notices(venues: [Routing.Venue], requestId: String?) -> ClassNotices? {
        guard let publisher else { return nil }
        var names: [UUID: String] = [:]
        for venue in venues { if let id = UUID(uuidString: venue.id) { names[id] = venue.name } }
        return ClassNotices(publisher: publisher, zone: campusZone, venueNames: names, requestId: requestId)
    }

    /// Venues by their match keys: the name, and the id.
    static func venueIndex(_ venues: [Routing.Venue]) -> [String: UUID] {
        var index: [String: UUID] = [:]
        for venue in venues.sorted(by: { $0.id < $1.id }) {
            guard let id = UUID(uuidString: venue.id) else { continue }
            index[TimetableNames.matchKey(venue.name)] = index[TimetableNames.matchKey(venue.name)] ?? id
            index[venue.id.lowercased()] = id
        }
        return index
    }

    /// A location's venue: its whole text, else the part before the first comma (`IT 4-1,
    /// Informatorium`), compared with venue names without regard to case or spacing, or a venue id.
    static func match(_ location: String, in index: [String: UUID]) -> UUID? {
        if let venue = index[TimetableNames.matchKey(location)] { return venue }
        if let head = location.split(separator: ",").first, let venue = index[TimetableNames.matchKey(head)] {
            return venue
        }
        return nil
    }

    /// Replaces the user's modules.
    public func setModules(_ codes: [String], user: UUID) async throws -> Routing.ModuleCodes {
        let codes = try ModuleCodeRules.normalised(codes)
        let unknown = try await store.setModules(codes, of: user)
        memo.forget(user)
        guard unknown.isEmpty else {
            throw ServiceError(
                .invalidArgument, "no module \(unknown.joined(separator: ", "))",
                details: ["field": "codes", "unknown": .array(unknown.map { .string($0) })])
        }
        return .init(codes: codes)
    }

    /// The user's class occurrences overlapping `[from, to)`, soonest first, cancelled ones left out.
    public func occurrences(user: UUID, from: Date, to: Date) async throws -> [Routing.ClassOccurrence] {
        var items: [Routing.ClassOccurrence] = []
        for meeting in try await store.meetings(of: user, from: from, to: to) {
            var venue: Routing.ClassVenue?
            if let id = meeting.venueId, let found = try await venueCache.venue(id: id) {
                venue = .init(
                    id: found.id, name: found.name, building: found.building, level: found.level, lat: found.lat,
                    lon: found.lon)
            }
            for occurrence in meeting.schedule.occurrences(from: from, to: to) {
                items.append(
                    .init(
                        meetingId: meeting.id.uuidString.lowercased(), moduleCode: meeting.moduleCode,
                        moduleName: meeting.moduleName, kind: meeting.kind, start: occurrence.start,
                        end: occurrence.end, location: meeting.location, venue: venue))
            }
        }
        return items.sorted { ($0.start, $0.moduleCode, $0.meetingId) < ($1.start, $1.moduleCode, $1.meetingId) }
    }

    /// The user's class occurrences overlapping `[from, to)` (a window of the next hours), soonest
    /// first, from the modules' shared memory (``ModuleMemo``): one query, the user's module codes,
    /// when every module is held. What ``OccurrenceMemo`` loads.
    func upcoming(user: UUID, from: Date, to: Date) async throws -> [Routing.ClassOccurrence] {
        let codes = try await store.modules(of: user)
        let found = try await moduleMemo.occurrences(of: codes, from: from, to: to) {
            try await store.meetings(modules: $0)
        }
        var venues: [UUID: Routing.ClassVenue] = [:]
        var items: [Routing.ClassOccurrence] = []
        items.reserveCapacity(found.count)
        for (meeting, occurrence) in found {
            var venue: Routing.ClassVenue?
            if let id = meeting.venueId {
                if let known = venues[id] {
                    venue = known
                } else if let stored = try await venueCache.venue(id: id) {
                    venue = .init(
                        id: stored.id, name: stored.name, building: stored.building, level: stored.level,
                        lat: stored.lat, lon: stored.lon)
                    venues[id] = venue
                }
            }
            items.append(
                .init(
                    meetingId: meeting.id.uuidString.lowercased(), moduleCode: meeting.moduleCode,
                    moduleName: meeting.moduleName, kind: meeting.kind, start: occurrence.start, end: occurrence.end,
                    location: meeting.location, venue: venue))
        }
        return items.sorted { ($0.start, $0.moduleCode, $0.meetingId) < ($1.start, $1.moduleCode, $1.meetingId) }
    }

    /// Forgets the classes held in memory (a timetable changed): students' and modules'.
    public func forgetTimetable() {
        memo.forgetAll()
        moduleMemo.forgetAll()
    }

    /// The timetable between `from` and `to` (RFC 3339; default now to a week later).
    public func timetable(user: UUID, from: String?, to: String?, now: Date) async throws -> Routing.MyTimetable.Reply {
        var start = now
        if let from { start = try Self.instant(from, field: "from") }
        var end = start.addingTimeInterval(7 * 86_400)
        if let to { end = try Self.instant(to, field: "to") }
        guard end > start else { throw ServiceError.invalidArgument("to must be after from", field: "to") }
        guard end.timeIntervalSince(start) <= Self.maximumWindow else {
            throw ServiceError.invalidArgument("from...to spans at most 62 days", field: "to")
        }
        async let modules = store.modules(of: user)
        let items = try await occurrences(user: user, from: start, to: end)
        return .init(
            from: start, to: end, modules: try await modules, items: items,
            feedUrl: try await feedURL(user: user, now: now))
    }

    /// The user's feed address, making its secret when the user has none.
    public func feedURL(user: UUID, now: Date) async throws -> String {
        let secret = try await store.feedSecret(of: user, make: Self.newSecret, now: now)
        return "\(feedBaseURL)/\(secret).ics"
    }

    /// 32 random bytes, base64url without padding (43 characters).
    static func newSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// The feed named by `secret` (with or without `.ics`); an unknown or revoked one is a 404.
    public func feed(secret text: String, now: Date) async throws -> Routing.TimetableFeed.Reply {
        let secret = text.hasSuffix(".ics") ? String(text.dropLast(4)) : text
        guard secret.count == 43, secret.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }),
            let user = try await store.feedOwner(secret: secret)
        else { throw ServiceError.notFound("no such timetable feed (it may have been revoked)") }
        let items = try await occurrences(
            user: user, from: now.addingTimeInterval(-Self.feedPast), to: now.addingTimeInterval(Self.feedAhead))
        let events = items.map { item in
            ICalendarWriter.Event(
                uid: "\(item.meetingId)-\(Int(item.start.timeIntervalSince1970))@navup",
                start: item.start, end: item.end, summary: "\(item.moduleCode) \(item.moduleName) (\(item.kind))",
                location: item.venue?.name ?? item.location, categories: item.kind.uppercased())
        }
        return .init(calendar: ICalendarWriter.calendar(events, name: "NavUP timetable", stamp: now))
    }

    /// Revokes the user's feed (a new address is made at the next read); idempotent.
    public func revokeFeed(user: UUID) async throws {
        _ = try await store.revokeFeed(of: user)
    }

    /// An RFC 3339 date-time.
    static func instant(_ text: String, field: String) throws(ServiceError) -> Date {
        if let date = try? Date(text, strategy: .iso8601) { return date }
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) {
            return date
        }
        throw ServiceError.invalidArgument("\(field) must be an RFC 3339 date-time, e.g. 2026-03-02T00:00:00Z", field: field)
    }
}

extension TimetableHandler {
    /// The caller's next class with a venue starting within ``ClassDeparture/horizon`` after
    /// `now`, the route there from `from`, and when to leave.
    public func nextClass(
        user: UUID, from: Routing.Point, profile: RouteProfile, navigator: Navigator, now: Date
    ) async throws -> Routing.NextClass.Reply {
        let horizon = now.addingTimeInterval(ClassDeparture.horizon)
        let upcoming = try await memo.upcoming(user: user, now: now) {
            try await self.upcoming(user: user, from: $0, to: $1)
        }
        guard let next = upcoming.first(where: { $0.start > now && $0.start <= horizon && $0.venue != nil }),
            let venue = next.venue
        else {
            throw ServiceError(
                .notFound, "no class in the next 12 hours", details: ["reason": "no_class"])
        }
        let route = try navigator.route(
            from: from, to: Routing.Point(lat: venue.lat, lon: venue.lon, level: venue.level), profile: profile)
        let departure = ClassDeparture(start: next.start, eta: route.eta, now: now)
        return .init(
            occurrence: next, route: route, leaveAt: departure.leaveAt, spareSeconds: departure.spareSeconds,
            late: departure.late)
    }
}

extension TimetableHandler {
    /// The user's classes at `venue` whose attendance window holds `now` (from 10 minutes before
    /// the start until the end).
    public func attendable(user: UUID, venue: UUID, now: Date) async throws -> [Routing.ClassOccurrence] {
        let id = venue.uuidString.lowercased()
        return try await memo.upcoming(user: user, now: now) { try await self.upcoming(user: user, from: $0, to: $1) }
            .filter { $0.venue?.id == id && AttendanceWindow.contains(now, start: $0.start, end: $0.end) }
    }
}

extension TimetableHandler {
    /// Upcoming events, those concerning the user first (see ``Routing/MyEvents``): the first
    /// ``maximumEventsConsidered`` upcoming events are ranked.
    public func myEvents(user: UUID, events: CampusEventStore, now: Date, limit: Int) async throws
        -> Routing.MyEvents.Reply
    {
        let mine = try await store.concerns(of: user)
        let upcoming = try await events.upcoming(
            kind: nil, venue: nil, now: now, before: nil, limit: Self.maximumEventsConsidered)
        let ranked = upcoming.map { event in
            var because: [String] = []
            because += event.modules.filter { mine.modules.contains($0) }.map { "module:\($0)" }
            because += event.faculties.filter { mine.faculties.contains(TimetableNames.matchKey($0)) }
                .map { "faculty:\($0)" }
            if let venue = event.venueId, mine.venues.contains(venue) { because.append("venue:\(venue)") }
            return Routing.MyEvent(event: event, concernsMe: !because.isEmpty, because: because)
        }
        // A stable partition: concerning first, each group in the store's order (soonest first).
        let items = ranked.filter(\.concernsMe) + ranked.filter { !$0.concernsMe }
        return .init(items: Array(items.prefix(limit)))
    }

    /// How many upcoming events `myEvents` ranks.
    public static let maximumEventsConsidered = 1_000
}

extension TimetableHandler {
    /// Deletes a module (its meetings and enrolments go with it); 404 when there is none.
    public func deleteModule(_ typed: String, now: Date, requestId: String? = nil) async throws {
        let text = typed.removingPercentEncoding ?? typed
        guard let (code, rest) = TimetableNames.moduleCode(prefixOf: text), rest.trimmingCharacters(in: .whitespaces).isEmpty
        else { throw ServiceError.notFound("no module \(typed.prefix(30))") }
        var notices: ClassNotices?
        if publisher != nil { notices = self.notices(venues: try await venues.all(), requestId: requestId) }
        let stored: [StoredEvent]? = try await transactions.run { tx in
            var stored: [StoredEvent] = []
            // Announced before the delete: the students enrolled go with the module.
            if let notices {
                let before = try await store.meetings(uids: try await store.meetingUIDs(module: code, in: tx), in: tx)
                stored = try await notices.announce(
                    before: ClassNotices.states(before), after: [], now: now, store: store, in: tx)
            }
            guard try await store.deleteModule(code, in: tx) else { return nil }
            return stored
        }
        guard let stored else { throw ServiceError.notFound("no module \(typed.prefix(30))") }
        for event in stored { publisher?.announce(event) }
        forgetTimetable()
    }
}

extension TimetableHandler {
    /// `import_timetable` (admin).
    func importTimetable(_ request: Routing.ImportTimetable.Request, _ context: OperationContext) async throws
        -> Routing.ImportTimetable.Reply
    {
        _ = try context.requireRole(.admin)
        return try await importTimetable(request, now: clock.now(), requestId: context.metadata.requestId)
    }

    /// `list_modules` (admin).
    func listModules(_ request: Empty, _ context: OperationContext) async throws -> Routing.ListModules.Reply {
        _ = try context.requireRole(.admin)
        return .init(items: try await store.modules())
    }

    /// `delete_module` (admin).
    func deleteModule(_ request: Routing.DeleteModule.Request, _ context: OperationContext) async throws -> Empty {
        _ = try context.requireRole(.admin)
        try await deleteModule(request.code, now: clock.now(), requestId: context.metadata.requestId)
        return Empty()
    }

    /// `set_my_modules`.
    func setMyModules(_ request: Routing.SetMyModules.Request, _ context: OperationContext) async throws
        -> Routing.SetMyModules.Reply
    {
        try await setModules(request.codes, user: try context.userId())
    }

    /// `my_timetable`.
    func myTimetable(_ request: Routing.MyTimetable.Request, _ context: OperationContext) async throws
        -> Routing.MyTimetable.Reply
    {
        try await timetable(user: try context.userId(), from: request.from, to: request.to, now: clock.now())
    }

    /// `timetable_feed`: no caller; the secret in the address is the key.
    func feed(_ request: Routing.TimetableFeed.Request, _ context: OperationContext) async throws
        -> Routing.TimetableFeed.Reply
    {
        try await feed(secret: request.secret, now: clock.now())
    }

    /// `revoke_timetable_feed`.
    func revokeFeed(_ request: Empty, _ context: OperationContext) async throws -> Empty {
        try await revokeFeed(user: try context.userId())
        return Empty()
    }

    /// `get_class_reminders`.
    func reminders(_ request: Empty, _ context: OperationContext) async throws -> Routing.ClassReminderSettings {
        .init(minutesBefore: try await store.reminderMinutes(of: try context.userId()))
    }

    /// `set_class_reminders`: a lead of ``ClassReminders/minimumMinutes`` to
    /// ``ClassReminders/maximumMinutes``, or none.
    func setReminders(_ request: Routing.ClassReminderSettings, _ context: OperationContext) async throws
        -> Routing.ClassReminderSettings
    {
        let user = try context.userId()
        if let minutes = request.minutesBefore,
            !(ClassReminders.minimumMinutes...ClassReminders.maximumMinutes).contains(minutes)
        {
            let range = "\(ClassReminders.minimumMinutes) to \(ClassReminders.maximumMinutes)"
            throw ServiceError.invalidArgument("minutesBefore is \(range), or null for none", field: "minutesBefore")
        }
        try await store.setReminderMinutes(request.minutesBefore, of: user, now: clock.now())
        return request
    }
}
