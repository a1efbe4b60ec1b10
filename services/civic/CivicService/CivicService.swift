import AsyncHTTPClient
import AuthContract
import NotifyContract
import CivicContract
import Contract
import Foundation
import Logging
import PostgresNIO
import ServiceKit
import ServiceLifecycle
import Store

/// The `civic` service: PolitiMap's bills, people, meetings and bookmarks, and the importer
/// that keeps them fresh from an Open States API v3 feed.
public enum CivicService {
    /// What the executable is and reads, for `--help`.
    public static let spec = ProcessSpec(
        name: "civic",
        summary: "MDP worker for PolitiMap: bills by level of government, people, meetings, bookmarks, the importer",
        settings: WorkerHost.settings + FeedSettings.all + [BoundaryAtlas.fileSetting, LocalImporter.filesSetting],
        probeHelp: "check that a civic worker answers its health operation through the broker")

    /// The migrations shipped with the service (`Migrations/NNNN_name.sql`).
    public static func migrations() throws -> [Migration] {
        guard let url = Bundle.module.url(forResource: "Migrations", withExtension: nil) else {
            throw ServiceError(.internal, "the civic service's Migrations folder is missing from its resources")
        }
        return try Migration.load(from: url)
    }

    /// The service's parts on one database.
    public struct Parts: Sendable {
        public let bills: BillStore
        public let people: PeopleStore
        public let meetings: MeetingStore
        public let bookmarks: BookmarkStore
        public let subscriptions: SubscriptionStore
        public let pushes: PushStore
        public let statedPositions: StatedPositionStore
        public let atlas: BoundaryAtlas
        public let clock: any WallClock
        let logger: Logger

        /// `atlas`: the outlines to serve (``BoundaryAtlas/configured(_:)``); nil, the bundled ones.
        public init(client: PostgresClient, clock: any WallClock, logger: Logger, atlas: BoundaryAtlas? = nil) throws {
            bills = BillStore(client: client, logger: logger)
            people = PeopleStore(client: client, logger: logger)
            meetings = MeetingStore(client: client, logger: logger)
            bookmarks = BookmarkStore(client: client, logger: logger)
            subscriptions = SubscriptionStore(client: client, logger: logger)
            pushes = PushStore(client: client, logger: logger)
            statedPositions = StatedPositionStore(client: client, logger: logger)
            self.logger = logger
            self.atlas = try atlas ?? BoundaryAtlas.shipped()
            self.clock = clock
        }
    }

    /// The operation table: one line per operation.
    public static func register(_ parts: Parts, on router: inout OperationRouter) {
        let catalog = BillCatalog(bills: parts.bills)
        let directory = PeopleDirectory(people: parts.people, clock: parts.clock)
        let calendar = MeetingCalendar(meetings: parts.meetings, clock: parts.clock)
        let shelf = BookmarkShelf(bookmarks: parts.bookmarks, clock: parts.clock)
        let desk = SubscriptionDesk(subscriptions: parts.subscriptions, clock: parts.clock)
        let positions = PositionDesk(positions: parts.statedPositions, clock: parts.clock, logger: parts.logger)
        router.register(Civic.ListJurisdictions.self) { try await catalog.jurisdictions($0, $1) }
        router.registerEncoded(Civic.ListBills.self) { try await catalog.listJSON($0, $1) }
        router.registerEncoded(Civic.GetBill.self) { try await catalog.getJSON($0, $1) }
        router.registerEncoded(Civic.HighlightedBills.self) { try await catalog.highlightedJSON($0, $1) }
        router.register(Civic.SetHighlight.self) { try await catalog.setHighlight($0, $1) }
        router.register(Civic.ListTopics.self) { try await catalog.topics($0, $1) }
        router.register(Civic.ListPeople.self) { try await directory.list($0, $1) }
        router.register(Civic.GetPerson.self) { try await directory.get($0, $1) }
        router.register(Civic.SetStatedPosition.self) { try await positions.set($0, $1) }
        router.register(Civic.DeleteStatedPosition.self) { try await positions.delete($0, $1) }
        router.register(Civic.ListMeetings.self) { try await calendar.list($0, $1) }
        router.register(Civic.NextMeeting.self) { try await calendar.next($0, $1) }
        router.register(Civic.GetBookmark.self) { try await shelf.get($0, $1) }
        router.register(Civic.PutBookmark.self) { try await shelf.put($0, $1) }
        router.register(Civic.DeleteBookmark.self) { try await shelf.delete($0, $1) }
        router.register(Civic.ListBookmarks.self) { try await shelf.list($0, $1) }
        router.registerEncoded(Civic.Boundaries.self) { _, _ in parts.atlas.encoded }
        // Kept encoded in memory: a quick read (see `OperationRouter.markQuick`).
        router.markQuick(Civic.Boundaries.self)
        router.register(Civic.Lookup.self, decoding: LookupBody.decode) { try await parts.atlas.lookup($0, $1) }
        router.register(Civic.CreateSubscription.self) { try await desk.create($0, $1) }
        router.register(Civic.UpdateSubscription.self) { try await desk.update($0, $1) }
        router.register(Civic.DeleteSubscription.self) { try await desk.delete($0, $1) }
    }

    /// Its migrations, operations, the import schedule, the consumer that forgets deleted accounts,
    /// and new-bill push: the consumer that owes each subscribed device the bill, and the pusher
    /// that hands the decided pushes to notify.
    /// The outlines are read first (`CIVIC_BOUNDARIES_FILE`): a bad file stops the process here;
    /// so does a bad local file (`CIVIC_LOCAL_FILES`), which is imported before civic serves.
    public static let definition = WorkerDefinition(service: .civic, migrations: migrations) { router, resources in
        let atlas = try BoundaryAtlas.configured(resources.environment)
        if resources.environment.string(BoundaryAtlas.fileSetting) != nil {
            resources.logger.info(
                "outlines loaded", metadata: ["features": "\(atlas.features.count)", "bytes": "\(atlas.encoded.count)"])
        }
        let publisher = try resources.publisher()
        let parts = try Parts(
            client: resources.postgres, clock: resources.clock, logger: resources.logger, atlas: atlas)
        register(parts, on: &router)
        let local = LocalImporter(
            client: resources.postgres, events: publisher, clock: resources.clock, logger: resources.logger)
        router.register(Civic.ImportLocal.self) { try await local.apply($0, $1) }
        // CIVIC_LOCAL_FILES: checked whole (a bad file stops the process here), then applied; every
        // replica applies them, and a file already applied changes nothing.
        for file in try LocalImporter.configuredFiles(resources.environment) { _ = try await local.apply(file) }
        let settings = try FeedSettings(environment: resources.environment)
        let feed = FeedClient(http: HTTPClient.shared, settings: settings, logger: resources.logger)
        let importer = Importer(
            client: resources.postgres, feed: feed, events: publisher, clock: resources.clock,
            logger: resources.logger)
        let scheduler = ImportScheduler(
            queue: JobQueue(client: resources.postgres, schema: "civic", clock: resources.clock, logger: resources.logger),
            importer: importer, intervalSeconds: settings.intervalSeconds, pollInterval: .seconds(5),
            logger: resources.logger)
        let forgetter = try resources.consumer(name: "civic.auth", topics: [Auth.AccountDeleted.topic]) {
            event, connection in
            let deleted = try Wire.makeDecoder().decode(Auth.AccountDeleted.self, from: event.payload)
            guard let user = UUID(uuidString: deleted.userId) else { return }
            try await parts.bookmarks.forget(user, on: connection)
        }
        // A device whose token the push provider refused is unsubscribed (if its token is unchanged).
        let refusals = try resources.consumer(name: "civic.tokens", topics: [Notify.DeviceTokenRefused.topic]) {
            event, connection in
            let refused = try Wire.makeDecoder().decode(Notify.DeviceTokenRefused.self, from: event.payload)
            guard let id = UUID(uuidString: refused.deviceId) else { return }
            if try await parts.subscriptions.forgetRefused(id, tokenSHA256: refused.tokenSHA256, on: connection) {
                resources.logger.info(
                    "subscription ended: its push token was refused",
                    metadata: ["subscriptionId": "\(id)", "reason": "\(refused.reason)"])
            }
        }
        let (wake, nudge) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let clock = resources.clock
        let owing = try resources.consumer(name: "civic.push", topics: [Civic.BillIntroduced.topic]) {
            event, connection in
            let bill = try Wire.makeDecoder().decode(Civic.BillIntroduced.self, from: event.payload)
            let owed = try await parts.pushes.owe(
                bill, introducedAt: event.createdAt, now: clock.now(), on: connection)
            if owed > 0 { nudge.yield() }
        }
        var pusher = NewBillPusher(
            pushes: parts.pushes, submit: .overBus(resources.bus), clock: resources.clock, wake: wake,
            logger: resources.logger)
        pusher.gather = Double(try resources.environment.int(FeedSettings.pushGather, in: 0...3600))
        return [publisher.service, forgetter, refusals, scheduler, owing, pusher]
    }
}
