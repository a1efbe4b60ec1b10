import AuthContract
import Contract
import Foundation
import Logging
import OrdersContract
import PostgresNIO
import ServiceKit
import SocialContract
import Store

/// The `social` service: Gifter's people (directory, friend requests, friends, blocks), the
/// product catalogue, and the gift checks orders asks for.
public enum SocialService {
    static let catalogProvider = Setting(
        "CATALOG_PROVIDER", default: "sandbox",
        "where products come from: `sandbox` (20,000 generated products in PostgreSQL, works offline) or `amazon` "
            + "(the Product Advertising API 5.0; AMAZON_* settings)")
    static let amazonAccessKey = Setting("AMAZON_ACCESS_KEY", default: nil, "PA-API access key (CATALOG_PROVIDER=amazon)")
    static let amazonSecretKey = Setting(
        "AMAZON_SECRET_KEY", default: nil, "PA-API secret key, signs each request (SigV4)", secret: true)
    static let amazonPartnerTag = Setting("AMAZON_PARTNER_TAG", default: nil, "the Associates partner tag, e.g. store-20")
    static let amazonMarketplace = Setting(
        "AMAZON_MARKETPLACE", default: "www.amazon.com", "the PA-API marketplace, e.g. www.amazon.de")
    static let amazonHost = Setting(
        "AMAZON_HOST", default: "webservices.amazon.com", "the marketplace's PA-API host, e.g. webservices.amazon.de")
    static let amazonRegion = Setting(
        "AMAZON_REGION", default: "us-east-1", "the host's signing region (eu-west-1 for European marketplaces)")
    static let amazonEndpoint = Setting(
        "AMAZON_ENDPOINT", default: nil, "where PA-API calls go (default https://AMAZON_HOST; a stand-in's URL offline)")
    static let catalogCacheSeconds = Setting(
        "CATALOG_CACHE_S", default: "300", "how long the amazon catalogue's answers are reused, in seconds (0: never)",
        formerly: [.init("CATALOG_CACHE_SECONDS")])

    /// The settings this service adds to every worker's.
    static let own = [
        catalogProvider, amazonAccessKey, amazonSecretKey, amazonPartnerTag, amazonMarketplace, amazonHost,
        amazonRegion, amazonEndpoint, catalogCacheSeconds,
    ]

    /// What the executable is and reads, for `--help`.
    public static let spec = ProcessSpec(
        name: "social",
        summary: "MDP worker for Gifter: friends and friend requests, blocks, the product catalogue, gift checks",
        settings: WorkerHost.settings + own,
        probeHelp: "check that a social worker answers its health operation through the broker")

    /// The migrations shipped with the service (`Migrations/NNNN_name.sql`).
    public static func migrations() throws -> [Migration] {
        guard let url = Bundle.module.url(forResource: "Migrations", withExtension: nil) else {
            throw ServiceError(.internal, "the social service's Migrations folder is missing from its resources")
        }
        return try Migration.load(from: url)
    }

    /// The service's parts on one database.
    public struct Parts: Sendable {
        public let people: PeopleStore
        public let friends: FriendStore
        public let catalog: any CatalogProvider
        public let favourites: FavouriteStore
        public let contacts: ContactStore
        public let addresses: AddressStore
        public let clock: any WallClock

        public init(
            client: PostgresClient, events: EventPublisher, catalog: (any CatalogProvider)? = nil,
            clock: any WallClock, logger: Logger
        ) {
            people = PeopleStore(client: client, logger: logger)
            friends = FriendStore(client: client, events: events, logger: logger)
            self.catalog = catalog ?? SandboxCatalog(client: client, logger: logger)
            favourites = FavouriteStore(client: client, logger: logger)
            contacts = ContactStore(client: client, logger: logger)
            addresses = AddressStore(client: client, logger: logger)
            self.clock = clock
        }
    }

    /// The operation table: one line per operation.
    public static func register(_ parts: Parts, on router: inout OperationRouter) {
        let friendBook = FriendBook(friends: parts.friends, people: parts.people, clock: parts.clock)
        let lists = FriendLists(friends: parts.friends)
        let catalog = CatalogBrowsing(provider: parts.catalog)
        let gifts = GiftCheck(provider: parts.catalog, friends: parts.friends, people: parts.people, addresses: parts.addresses)
        let directory = Directory(people: parts.people)
        let wishes = WishList(
            favourites: parts.favourites, friends: parts.friends, catalog: parts.catalog, clock: parts.clock)
        router.register(Social.SearchUsers.self) { try await directory.search($0, $1) }
        router.register(Social.AddFavourite.self) { try await wishes.add($0, $1) }
        router.register(Social.ListFavourites.self) { try await wishes.list($0, $1) }
        router.register(Social.RemoveFavourite.self) { try await wishes.remove($0, $1) }
        router.register(Social.FriendFavourites.self) { try await wishes.friendList($0, $1) }
        let book = AddressBook(contacts: parts.contacts, clock: parts.clock)
        router.register(Social.ListContacts.self) { try await book.list($0, $1) }
        router.register(Social.AddContact.self) { try await book.add($0, $1) }
        router.register(Social.UpdateContact.self) { try await book.update($0, $1) }
        router.register(Social.DeleteContact.self) { try await book.delete($0, $1) }
        router.register(Social.ResolveContacts.self) { try await book.resolve($0, $1) }
        let profile = ProfileAddresses(addresses: parts.addresses, clock: parts.clock)
        router.register(Social.GetAddresses.self) { try await profile.get($0, $1) }
        router.register(Social.SetAddresses.self) { try await profile.set($0, $1) }
        router.register(Social.GetPrivacy.self) { try await directory.privacy($0, $1) }
        router.register(Social.SetPrivacy.self) { try await directory.setPrivacy($0, $1) }
        router.register(Social.SendFriendRequest.self) { try await friendBook.send($0, $1) }
        router.register(Social.ListFriendRequests.self) { try await lists.requests($0, $1) }
        router.register(Social.AcceptFriendRequest.self) { try await friendBook.accept($0, $1) }
        router.register(Social.DeclineFriendRequest.self) { try await friendBook.decline($0, $1) }
        router.register(Social.CancelFriendRequest.self) { try await friendBook.cancel($0, $1) }
        router.register(Social.ListFriends.self) { try await lists.friends($0, $1) }
        router.register(Social.RemoveFriend.self) { try await friendBook.remove($0, $1) }
        router.register(Social.BlockUser.self) { try await friendBook.block($0, $1) }
        router.register(Social.UnblockUser.self) { try await friendBook.unblock($0, $1) }
        router.register(Social.SearchCatalog.self) { try await catalog.search($0, $1) }
        router.register(Social.GetCatalogItem.self) { try await catalog.item($0, $1) }
        router.register(Social.CheckGift.self) { try await gifts.check($0, $1) }
    }

    /// Applies one of auth's events (the directory, deleted accounts) or orders' (cards sent to
    /// contacts) to social's tables, on the consumer's connection.
    public static func apply(_ event: StoredEvent, to parts: Parts, on connection: PostgresConnection) async throws {
        let decoder = Wire.makeDecoder()
        switch event.topic {
        case Auth.ProfileChanged.topic:
            let changed = try decoder.decode(Auth.ProfileChanged.self, from: event.payload)
            guard let entry = DirectoryEntry(changed) else { return }
            try await parts.people.apply(entry, now: parts.clock.now(), on: connection)
        case Orders.Topic.paid:
            let paid = try decoder.decode(Orders.OrderEvent.self, from: event.payload)
            try await parts.contacts.count(paid, eventId: event.id, now: parts.clock.now(), on: connection)
        case Auth.AccountDeleted.topic:
            let deleted = try decoder.decode(Auth.AccountDeleted.self, from: event.payload)
            guard let user = UUID(uuidString: deleted.userId) else { return }
            try await parts.people.forget(user, on: connection)
        default:
            return
        }
    }

    /// Its migrations, operations, and the consumer of auth's profile and deletion events and of
    /// orders' paid orders.
    public static let definition = WorkerDefinition(service: .social, migrations: migrations) { router, resources in
        let environment = resources.environment
        let provider = try environment.required(catalogProvider)
        let catalog: (any CatalogProvider)?
        switch provider {
        case "sandbox":
            catalog = nil
        case "amazon":
            catalog = AmazonCatalog(
                settings: AmazonSettings(
                    accessKey: try environment.required(amazonAccessKey),
                    secretKey: try environment.required(amazonSecretKey),
                    partnerTag: try environment.required(amazonPartnerTag),
                    marketplace: try environment.required(amazonMarketplace),
                    host: try environment.required(amazonHost), region: try environment.required(amazonRegion),
                    endpoint: environment.string(amazonEndpoint),
                    cacheTTL: TimeInterval(try environment.int(catalogCacheSeconds, in: 0...86_400))),
                clock: resources.clock, logger: resources.logger)
        default:
            throw ServiceError(
                .invalidArgument, "CATALOG_PROVIDER=\(provider) is not valid: expected sandbox or amazon")
        }
        let publisher = try resources.publisher()
        let parts = Parts(
            client: resources.postgres, events: publisher, catalog: catalog, clock: resources.clock,
            logger: resources.logger)
        register(parts, on: &router)
        let directory = try resources.consumer(
            name: "social.auth", topics: [Auth.ProfileChanged.topic, Auth.AccountDeleted.topic, Orders.Topic.paid]
        ) { event, connection in
            try await apply(event, to: parts, on: connection)
        }
        return [publisher.service, directory]
    }
}
