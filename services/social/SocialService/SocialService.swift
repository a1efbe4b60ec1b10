import AuthContract
import Contract
import Foundation
import Logging
import OrdersContract
import ServiceKit
import SocialContract
import Store

/// The `social` service: Gifter's people (directory, friend requests, friends, blocks), the
/// product catalogue, and the gift checks orders asks for.
public enum SocialService {
    /// What the executable is and reads, for `--help`.
    public static let spec = ProcessSpec(
        name: "social",
        summary: "MDP worker for Gifter: friends and friend requests, blocks, the product catalogue, gift checks",
        settings: WorkerHost.settings + SocialSettings.own,
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
        public let transactions: Transactions
        public let events: EventPublisher
        public let clock: any WallClock

        public init(
            people: PeopleStore, friends: FriendStore, catalog: any CatalogProvider, favourites: FavouriteStore,
            contacts: ContactStore, addresses: AddressStore, transactions: Transactions, events: EventPublisher,
            clock: any WallClock
        ) {
            self.people = people
            self.friends = friends
            self.catalog = catalog
            self.favourites = favourites
            self.contacts = contacts
            self.addresses = addresses
            self.transactions = transactions
            self.events = events
            self.clock = clock
        }
    }

    /// The operation table: one line per operation.
    public static func register(_ parts: Parts, on router: inout OperationRouter) {
        let friendship = FriendHandler(
            transactions: parts.transactions, friends: parts.friends, people: parts.people, events: parts.events,
            clock: parts.clock)
        let lists = FriendListHandler(friends: parts.friends)
        let catalog = CatalogHandler(provider: parts.catalog)
        let gifts = GiftCheckHandler(
            provider: parts.catalog, friends: parts.friends, people: parts.people, addresses: parts.addresses)
        let directory = DirectoryHandler(people: parts.people)
        let wishes = WishListHandler(
            favourites: parts.favourites, friends: parts.friends, catalog: parts.catalog, clock: parts.clock)
        let book = AddressBookHandler(contacts: parts.contacts, clock: parts.clock)
        let profile = ProfileAddressHandler(addresses: parts.addresses, clock: parts.clock)
        router.register(Social.SearchUsers.self) { try await directory.search($0, $1) }
        router.register(Social.AddFavourite.self) { try await wishes.add($0, $1) }
        router.register(Social.ListFavourites.self) { try await wishes.list($0, $1) }
        router.register(Social.RemoveFavourite.self) { try await wishes.remove($0, $1) }
        router.register(Social.FriendFavourites.self) { try await wishes.friendList($0, $1) }
        router.register(Social.ListContacts.self) { try await book.list($0, $1) }
        router.register(Social.AddContact.self) { try await book.add($0, $1) }
        router.register(Social.UpdateContact.self) { try await book.update($0, $1) }
        router.register(Social.DeleteContact.self) { try await book.delete($0, $1) }
        router.register(Social.ResolveContacts.self) { try await book.resolve($0, $1) }
        router.register(Social.GetAddresses.self) { try await profile.get($0, $1) }
        router.register(Social.SetAddresses.self) { try await profile.set($0, $1) }
        router.register(Social.GetPrivacy.self) { try await directory.privacy($0, $1) }
        router.register(Social.SetPrivacy.self) { try await directory.setPrivacy($0, $1) }
        router.register(Social.SendFriendRequest.self) { try await friendship.send($0, $1) }
        router.register(Social.ListFriendRequests.self) { try await lists.requests($0, $1) }
        router.register(Social.AcceptFriendRequest.self) { try await friendship.accept($0, $1) }
        router.register(Social.DeclineFriendRequest.self) { try await friendship.decline($0, $1) }
        router.register(Social.CancelFriendRequest.self) { try await friendship.cancel($0, $1) }
        router.register(Social.ListFriends.self) { try await lists.friends($0, $1) }
        router.register(Social.RemoveFriend.self) { try await friendship.remove($0, $1) }
        router.register(Social.BlockUser.self) { try await friendship.block($0, $1) }
        router.register(Social.UnblockUser.self) { try await friendship.unblock($0, $1) }
        router.register(Social.SearchCatalog.self) { try await catalog.search($0, $1) }
        router.register(Social.GetCatalogItem.self) { try await catalog.item($0, $1) }
        router.register(Social.CheckGift.self) { try await gifts.check($0, $1) }
    }

    /// Its migrations, operations, and the consumer of auth's profile and deletion events and of
    /// orders' paid orders.
    public static let definition = WorkerDefinition(service: .social, migrations: migrations) { router, resources in
        let logger = resources.logger
        let database = resources.database.client
        let catalog: any CatalogProvider =
            if let amazon = try SocialSettings.amazon(resources.environment) {
                AmazonCatalogClient(settings: amazon, clock: resources.clock, logger: logger)
            } else {
                SandboxCatalogStore(client: database, logger: logger)
            }
        let publisher = try resources.publisher()
        let parts = Parts(
            people: PeopleStore(client: database, logger: logger), friends: FriendStore(client: database, logger: logger),
            catalog: catalog, favourites: FavouriteStore(client: database, logger: logger),
            contacts: ContactStore(client: database, logger: logger),
            addresses: AddressStore(client: database, logger: logger), transactions: resources.transactions,
            events: publisher, clock: resources.clock)
        register(parts, on: &router)
        let consumer = SocialEventConsumer(people: parts.people, contacts: parts.contacts, clock: parts.clock)
        let directory = try resources.consumer(
            name: "social.auth", topics: SocialEventConsumer.topics,
            inTransaction: { try await consumer.handle($0, in: $1) })
        return [publisher.service, directory]
    }
}
