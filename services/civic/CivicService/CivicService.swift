import AsyncHTTPClient
import AuthContract
import NotifyContract
import CivicContract
import Contract
import Foundation
import Logging
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
        settings: WorkerHost.settings + FeedSettings.all + [BoundaryHandler.fileSetting, LocalImporter.filesSetting],
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
        public let boundaries: BoundaryHandler
        public let clock: any WallClock
        let logger: Logger

        /// `boundaries`: the outlines to serve (``BoundaryHandler/configured(_:)``); nil, the bundled ones.
        public init(
            bills: BillStore, people: PeopleStore, meetings: MeetingStore, bookmarks: BookmarkStore,
            subscriptions: SubscriptionStore, pushes: PushStore, statedPositions: StatedPositionStore,
            clock: any WallClock, logger: Logger, boundaries: BoundaryHandler? = nil
        ) throws {
            self.bills = bills
            self.people = people
            self.meetings = meetings
            self.bookmarks = bookmarks
            self.subscriptions = subscriptions
            self.pushes = pushes
            self.statedPositions = statedPositions
            self.logger = logger
            self.boundaries = try boundaries ?? BoundaryHandler.shipped()
            self.clock = clock
        }
    }

    /// The operation table: one line per operation.
    public static func register(_ parts: Parts, on router: inout OperationRouter) {
        let bills = BillHandler(bills: parts.bills)
        let people = PeopleHandler(people: parts.people, clock: parts.clock)
        let meetings = MeetingHandler(meetings: parts.meetings, clock: parts.clock)
        let bookmarks = BookmarkHandler(bookmarks: parts.bookmarks, clock: parts.clock)
        let subscriptions = SubscriptionHandler(subscriptions: parts.subscriptions, clock: parts.clock)
        let positions = StatedPositionHandler(positions: parts.statedPositions, clock: parts.clock, logger: parts.logger)
        let boundaries = parts.boundaries
        router.register(Civic.ListJurisdictions.self) { try await bills.jurisdictions($0, $1) }
        router.registerEncoded(Civic.ListBills.self) { try await bills.listJSON($0, $1) }
        router.registerEncoded(Civic.GetBill.self) { try await bills.getJSON($0, $1) }
        router.registerEncoded(Civic.HighlightedBills.self) { try await bills.highlightedJSON($0, $1) }
        router.register(Civic.SetHighlight.self) { try await bills.setHighlight($0, $1) }
        router.register(Civic.ListTopics.self) { try await bills.topics($0, $1) }
        router.register(Civic.ListPeople.self) { try await people.list($0, $1) }
        router.register(Civic.GetPerson.self) { try await people.get($0, $1) }
        router.register(Civic.SetStatedPosition.self) { try await positions.set($0, $1) }
        router.register(Civic.DeleteStatedPosition.self) { try await positions.delete($0, $1) }
        router.register(Civic.ListMeetings.self) { try await meetings.list($0, $1) }
        router.register(Civic.NextMeeting.self) { try await meetings.next($0, $1) }
        router.register(Civic.GetBookmark.self) { try await bookmarks.get($0, $1) }
        router.register(Civic.PutBookmark.self) { try await bookmarks.put($0, $1) }
        router.register(Civic.DeleteBookmark.self) { try await bookmarks.delete($0, $1) }
        router.register(Civic.ListBookmarks.self) { try await bookmarks.list($0, $1) }
        router.registerEncoded(Civic.Boundaries.self) { try await boundaries.boundariesJSON($0, $1) }
        // Kept encoded in memory: a quick read (see `OperationRouter.markQuick`).
        router.markQuick(Civic.Boundaries.self)
        router.register(Civic.Lookup.self, decoding: LookupBody.decode) { try await boundaries.lookup($0, $1) }
        router.register(Civic.CreateSubscription.self) { try await subscriptions.create($0, $1) }
        router.register(Civic.UpdateSubscription.self) { try await subscriptions.update($0, $1) }
        router.register(Civic.DeleteSubscription.self) { try await subscriptions.delete($0, $1) }
    }

    /// Its migrations, operations, the import schedule, the consumer that forgets deleted accounts,
    /// and new-bill push: the consumer that owes each subscribed device the bill, and the pusher
    /// that hands the decided pushes to notify.
    /// The outlines are read first (`CIVIC_BOUNDARIES_FILE`): a bad file stops the process here;
    /// so does a bad local file (`CIVIC_LOCAL_FILES`), which is imported before civic serves.
    public static let definition = WorkerDefinition(service: .civic, migrations: migrations) { router, resources in
        let logger = resources.logger
        let boundaries = try BoundaryHandler.configured(resources.environment)
        if resources.environment.string(BoundaryHandler.fileSetting) != nil {
            logger.info(
                "outlines loaded",
                metadata: ["features": "\(boundaries.features.count)", "bytes": "\(boundaries.encoded.count)"])
        }
        let publisher = try resources.publisher()
        let database = resources.database.client
        let parts = try Parts(
            bills: BillStore(client: database, logger: logger), people: PeopleStore(client: database, logger: logger),
            meetings: MeetingStore(client: database, logger: logger),
            bookmarks: BookmarkStore(client: database, logger: logger),
            subscriptions: SubscriptionStore(client: database, logger: logger),
            pushes: PushStore(client: database, logger: logger),
            statedPositions: StatedPositionStore(client: database, logger: logger), clock: resources.clock,
            logger: logger, boundaries: boundaries)
        register(parts, on: &router)
        let imported = ImportedRecordStore(logger: logger)
        let local = LocalImporter(
            transactions: resources.transactions, imported: imported, positions: parts.statedPositions,
            events: publisher, clock: resources.clock, logger: logger)
        let localImport = LocalImportHandler(importer: local)
        router.register(Civic.ImportLocal.self) { try await localImport.apply($0, $1) }
        // CIVIC_LOCAL_FILES: checked whole (a bad file stops the process here), then applied; every
        // replica applies them, and a file already applied changes nothing.
        for file in try LocalImporter.configuredFiles(resources.environment) { _ = try await local.apply(file) }
        let settings = try FeedSettings(environment: resources.environment)
        let feed = FeedClient(http: HTTPClient.shared, settings: settings, logger: logger)
        let importer = Importer(
            transactions: resources.transactions, runs: ImportStore(client: database, logger: logger),
            imported: imported, feed: feed, events: publisher, clock: resources.clock, logger: logger)
        let scheduler = ImportScheduler(
            queue: JobQueue(client: database, schema: "civic", clock: resources.clock, logger: logger),
            importer: importer, intervalSeconds: settings.intervalSeconds, pollInterval: .seconds(5), logger: logger)
        let deletions = DeletedAccountForgetter(bookmarks: parts.bookmarks)
        let forgetter = try resources.consumer(
            name: "civic.auth", topics: [Auth.AccountDeleted.topic],
            inTransaction: { try await deletions.handle($0, in: $1) })
        let refused = RefusedTokenForgetter(subscriptions: parts.subscriptions, logger: logger)
        let refusals = try resources.consumer(
            name: "civic.tokens", topics: [Notify.DeviceTokenRefused.topic],
            inTransaction: { try await refused.handle($0, in: $1) })
        let (wake, nudge) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let owed = OwedPushRecorder(pushes: parts.pushes, clock: resources.clock, nudge: nudge)
        let owing = try resources.consumer(
            name: "civic.push", topics: [Civic.BillIntroduced.topic],
            inTransaction: { try await owed.handle($0, in: $1) })
        var pusher = NewBillPusher(
            pushes: parts.pushes, submit: .overBus(resources.bus), clock: resources.clock, wake: wake, logger: logger)
        pusher.gather = Double(try resources.environment.int(FeedSettings.pushGather, in: 0...3600))
        return [publisher.service, forgetter, refusals, scheduler, owing, pusher]
    }
}
