import CommonContract
import Contract
import Foundation
import Logging
import OrdersContract
import OrdersService
import PostgresNIO
import ServiceKit
import SocialContract
import SocialService
import Store
import Testing
import TestSupport

/// Gift purchases end to end in one process, with real PostgreSQL and real ZeroMQ: orders'
/// placement handler asks a social worker, through a broker, for the item's price and the friendship.
@Suite("social: gift purchases priced and checked by social (PostgreSQL, ZeroMQ)", .serialized)
struct GiftOrderTests {
    /// The handlers of orders, wired to `bus`.
    struct Orders_: Sendable {
        let handlers: OrdersService.Handlers
        var wallet: PaymentMethodHandler { handlers.paymentMethods }

        /// Places `request` as orders' `place_order` operation does: contacts first, then the order.
        func place(_ request: Orders.PlaceOrder.Request, actor: Actor) async throws -> Orders.PlaceOrder.Reply {
            try await handlers.placement.placeOrder(
                request, actor: actor, idempotencyKey: UUID().uuidString, requestId: "t")
        }
    }

    /// A broker with one social worker on `db`'s router, and orders' parts asking it.
    static func withOrders(_ db: SocialDatabase, _ body: @Sendable (Orders_) async throws -> Void) async throws {
        let logger = SocialDatabase.logger
        let client = db.client
        try await Migrator(client: client, schema: "orders", logger: logger).migrate(OrdersService.migrations())
        let clock = ManualClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
        let stores = OrdersStores(client: client, logger: logger)
        try await stores.rates.bootstrap(from: OrdersService.sampleRatesURL(), source: "test", now: clock.now())
        let configuration = try OrdersService.Configuration(ProcessEnvironment(["ECARD_PRICE": "0.99"]))
        let quoting = QuoteHandler(
            quotes: stores.quotes, rates: stores.rates, pricing: configuration.pricing,
            tariffs: BuiltInPostageTariff(configuration.tariff), validity: configuration.quoteValidity, clock: clock,
            logger: logger)
        let publisher = EventPublisher(
            log: EventLog(client: client, clock: clock, logger: logger), producer: .orders,
            context: SocialDatabase.context, endpoint: "tcp://127.0.0.1:1")
        let provider = SandboxPaymentClient()
        try await InProcessBus.with(db.router, concurrency: 8, logger: logger) { _, bus in
            let handlers = OrdersService.Handlers(
                stores: stores, transactions: Transactions(client, logger: logger), quotes: quoting,
                provider: provider, events: publisher, keyLifetime: configuration.keyLifetime,
                gifts: SocialGiftClient(bus: bus), contacts: SocialContactClient(bus: bus), clock: clock,
                logger: logger)
            try await body(Orders_(handlers: handlers))
        }
    }

    /// Two friends, a card for the first, and an available and an unavailable item.
    struct Scene: Sendable {
        let buyer: Actor
        let friend: UUID
        let stranger: UUID
        let card: String
        let item: Social.CatalogItem
        let soldOut: Social.CatalogItem
    }

    static func scene(_ db: SocialDatabase, _ orders: Orders_) async throws -> Scene {
        let ann = try await db.user(displayName: "Ann")
        let bo = try await db.user()
        let cy = try await db.user()
        _ = try await db.call(Social.SendFriendRequest.self, bo.ref, as: ann)
        _ = try await db.call(Social.AcceptFriendRequest.self, ann.ref, as: bo)
        let buyer = Actor(userId: ann.uuidString.lowercased(), roles: ["user"])
        let card = try await orders.wallet.add(
            .init(number: "4242424242424242", expMonth: 12, expYear: 2030, cvc: "123"), actor: buyer
        ).id
        let page = try await db.call(Social.SearchCatalog.self, .init(q: "teapot", limit: 100), as: ann)
        let item = try #require(page.items.first { $0.available })
        let unavailable = try await db.client.query(
            "SELECT id FROM social.catalog_items WHERE NOT available ORDER BY number LIMIT 1",
            logger: SocialDatabase.logger)
        var soldOutId = ""
        for try await id in unavailable.decode(UUID.self) { soldOutId = id.uuidString.lowercased() }
        let gone = try await db.call(Social.GetCatalogItem.self, .init(id: soldOutId), as: ann)
        return Scene(buyer: buyer, friend: bo, stranger: cy, card: card, item: item, soldOut: gone)
    }

    static func order(_ scene: Scene, _ gift: Orders.GiftOrder) -> Orders.PlaceOrder.Request {
        .init(kind: "gift", gift: gift, currency: "EUR", paymentMethodId: scene.card)
    }

    static func code(_ work: () async throws -> Void) async -> (ErrorCode, String?)? {
        do {
            try await work()
            return nil
        } catch let error as ServiceError {
            guard case .string(let field) = error.details?["field"] else { return (error.code, nil) }
            return (error.code, field)
        } catch {
            return (.internal, "\(error)")
        }
    }

    @Test("a gift to a friend is charged the catalogue's price; the friend's notice carries no price")
    func giftToFriend() async throws {
        try await SocialDatabase.with { db in
            try await Self.withOrders(db) { orders in
                let scene = try await Self.scene(db, orders)
                let placed = try await orders.handlers.placement.place(
                    Self.order(scene, .init(itemId: scene.item.id, quantity: 3, friendUserId: scene.friend.uuidString)),
                    idempotencyKey: UUID().uuidString, actor: scene.buyer, requestId: "t")
                #expect(placed.state == "paid")
                #expect(placed.total == Money(amount: scene.item.price.amount * 3, currency: "EUR"))
                let detail = try await orders.handlers.history.detail(placed.id, actor: scene.buyer)
                #expect(detail.gift?.item.unitPrice == scene.item.price && detail.gift?.item.title == scene.item.title)
                #expect(detail.gift?.recipientKind == "friend")
                let rows = try await db.client.query(
                    """
                    SELECT payload::text FROM events.log WHERE topic = \(Orders.GiftReceived.topic)
                      AND payload->>'userId' = \(scene.friend.uuidString.lowercased())
                    """, logger: SocialDatabase.logger)
                var notices: [String] = []
                for try await text in rows.decode(String.self) { notices.append(text) }
                #expect(notices.count == 1)
                let notice = try Wire.makeDecoder().decode(Orders.GiftReceived.self, from: Data(notices[0].utf8))
                #expect(notice.fromName == "Ann" && notice.title == scene.item.title)
                #expect(!notices[0].contains(String(scene.item.price.amount)))
            }
        }
    }

    @Test("price tampering: a request that names its own price is refused (400) and nothing is charged")
    func priceTampering() async throws {
        try await SocialDatabase.with { db in
            try await Self.withOrders(db) { orders in
                let scene = try await Self.scene(db, orders)
                // The body an old or hostile client sends: its own price for the item.
                let body = """
                    {"kind": "gift", "currency": "EUR", "paymentMethodId": "\(scene.card)",
                     "gift": {"itemId": "\(scene.item.id)", "quantity": 1, "friendUserId": "\(scene.friend.uuidString)",
                              "unitPrice": {"amount": 1, "currency": "EUR"}}}
                    """
                let request = try Wire.decodePayload(Orders.PlaceOrder.Request.self, from: Array(body.utf8))
                let refused = await Self.code {
                    _ = try await orders.handlers.placement.place(
                        request, idempotencyKey: UUID().uuidString, actor: scene.buyer, requestId: "t")
                }
                #expect(refused?.0 == .invalidArgument && refused?.1 == "gift.unitPrice")
                let list = try await orders.handlers.history.list(.init(), actor: scene.buyer)
                #expect(list.items.isEmpty)
            }
        }
    }

    @Test("a stranger is 403, a sold-out item 422, an unknown item 404; none is charged")
    func refusals() async throws {
        try await SocialDatabase.with { db in
            try await Self.withOrders(db) { orders in
                let scene = try await Self.scene(db, orders)
                func place(_ gift: Orders.GiftOrder) async -> (ErrorCode, String?)? {
                    await Self.code {
                        _ = try await orders.handlers.placement.place(
                            Self.order(scene, gift), idempotencyKey: UUID().uuidString, actor: scene.buyer,
                            requestId: "t")
                    }
                }
                let stranger = await place(
                    .init(itemId: scene.item.id, quantity: 1, friendUserId: scene.stranger.uuidString))
                #expect(stranger?.0 == .permissionDenied && stranger?.1 == "gift.friendUserId")
                let soldOut = await place(
                    .init(itemId: scene.soldOut.id, quantity: 1, friendUserId: scene.friend.uuidString))
                #expect(soldOut?.0 == .failedPrecondition && soldOut?.1 == "gift.itemId")
                #expect(await place(.init(itemId: UUID().uuidString, quantity: 1))?.0 == .notFound)
                // A blocked friend is no friend any more.
                _ = try await db.call(Social.BlockUser.self, UUID(uuidString: scene.buyer.userId)!.ref, as: scene.friend)
                let blocked = await place(
                    .init(itemId: scene.item.id, quantity: 1, friendUserId: scene.friend.uuidString))
                #expect(blocked?.0 == .permissionDenied)
                #expect(try await orders.handlers.history.list(.init(), actor: scene.buyer).items.isEmpty)
                // For oneself, no friendship is needed.
                let own = try await orders.handlers.placement.place(
                    Self.order(scene, .init(itemId: scene.item.id, quantity: 1)), idempotencyKey: UUID().uuidString,
                    actor: scene.buyer, requestId: "t")
                #expect(own.total == scene.item.price)
            }
        }
    }

    @Test("check_gift is for services: a signed-in user asking is refused")
    func checkGiftIsInternal() async throws {
        try await SocialDatabase.with { db in
            let ann = try await db.user()
            let error = await db.error(
                Social.CheckGift.self, .init(buyerId: ann.uuidString, itemId: UUID().uuidString), as: ann)
            #expect(error?.code == .permissionDenied)
        }
    }

    @Test("a gift ships to the friend's shared shipping address unless the buyer enters one; never to an unshared one")
    func giftShipping() async throws {
        try await SocialDatabase.with { db in
            try await Self.withOrders(db) { orders in
                let scene = try await Self.scene(db, orders)
                func shippedTo(_ address: PostalAddress?) async throws -> PostalAddress? {
                    let placed = try await orders.place(
                        Self.order(
                            scene,
                            .init(
                                itemId: scene.item.id, quantity: 1, friendUserId: scene.friend.uuidString,
                                shippingAddress: address)), actor: scene.buyer)
                    return try await orders.handlers.history.detail(placed.id, actor: scene.buyer).gift?.shippingAddress
                }
                _ = try await db.call(Social.SetAddresses.self, .init(shippingAddress: ProfileTests.home), as: scene.friend)
                #expect(try await shippedTo(nil) == nil, "not shared (the default): the buyer does not learn it")
                _ = try await db.call(
                    Social.SetAddresses.self, .init(shippingAddress: ProfileTests.home, shareShippingWithFriends: true),
                    as: scene.friend)
                #expect(try await shippedTo(nil)?.line1 == "Storgatan 1", "shared with friends: shipped there")
                #expect(try await shippedTo(ProfileTests.office) == ProfileTests.office, "the buyer's own entry wins")
            }
        }
    }

    @Test("contactIds: postcard and e-card recipients from the buyer's address book; another's contact 404, a missing address 400")
    func contactRecipients() async throws {
        try await SocialDatabase.with { db in
            try await Self.withOrders(db) { orders in
                let scene = try await Self.scene(db, orders)
                let ann = UUID(uuidString: scene.buyer.userId)!
                let eva = try await db.call(
                    Social.AddContact.self, .init(name: "Eva Lind", address: ProfileTests.home, email: "eva@example.org"),
                    as: ann)
                let max = try await db.call(Social.AddContact.self, .init(name: "Max", email: "max@example.org"), as: ann)
                let others = try await db.call(
                    Social.AddContact.self, .init(name: "Bo's", address: ProfileTests.office), as: scene.friend)
                func postcard(_ ids: [String], inline: [PostalRecipient] = []) -> Orders.PlaceOrder.Request {
                    .init(
                        kind: "postcard", postcard: .init(size: "A6", recipients: inline, contactIds: ids), currency: "EUR",
                        paymentMethodId: scene.card)
                }
                let inline = PostalRecipient(name: "Ida", address: ProfileTests.office)
                let placed = try await orders.place(postcard([eva.id], inline: [inline]), actor: scene.buyer)
                let detail = try await orders.handlers.history.detail(placed.id, actor: scene.buyer)
                #expect(detail.postcard?.recipients.map(\.name) == ["Ida", "Eva Lind"])
                #expect(detail.postcard?.recipients.last?.address.country == "SE")
                #expect(detail.postcard?.contactIds == nil, "a stored order has every recipient inline")
                let card = try await orders.place(
                    .init(
                        kind: "ecard", ecard: .init(recipients: [], contactIds: [max.id, eva.id]), currency: "EUR",
                        paymentMethodId: scene.card), actor: scene.buyer)
                let ecard = try await orders.handlers.history.detail(card.id, actor: scene.buyer).ecard
                #expect(ecard?.recipients.map(\.email) == ["max@example.org", "eva@example.org"])
                // Refusals name the field; nothing is placed.
                let before = try await orders.handlers.history.list(.init(), actor: scene.buyer).items.count
                let foreign = await Self.code { _ = try await orders.place(postcard([eva.id, others.id]), actor: scene.buyer) }
                #expect(foreign?.0 == .notFound && foreign?.1 == "postcard.contactIds[1]")
                let unknown = await Self.code { _ = try await orders.place(postcard([UUID().uuidString]), actor: scene.buyer) }
                #expect(unknown?.0 == .notFound && unknown?.1 == "postcard.contactIds[0]")
                let noAddress = await Self.code { _ = try await orders.place(postcard([eva.id, max.id]), actor: scene.buyer) }
                #expect(noAddress?.0 == .invalidArgument && noAddress?.1 == "postcard.contactIds[1]")
                let notId = await Self.code { _ = try await orders.place(postcard(["eva"]), actor: scene.buyer) }
                #expect(notId?.0 == .invalidArgument && notId?.1 == "postcard.contactIds[0]")
                let noneAtAll = await Self.code { _ = try await orders.place(postcard([]), actor: scene.buyer) }
                #expect(noneAtAll?.0 == .invalidArgument)
                #expect(try await orders.handlers.history.list(.init(), actor: scene.buyer).items.count == before)
                // The wire form: recipients may be left out when contactIds names them.
                let body = #"{"size": "A6", "contactIds": ["\#(eva.id)"]}"#
                let decoded = try Wire.decodePayload(Orders.PostcardDetails.self, from: Array(body.utf8))
                #expect(decoded.recipients.isEmpty && decoded.contactIds == [eva.id])
                #expect(throws: (any Error).self) {
                    try Wire.decodePayload(Orders.PostcardDetails.self, from: Array(#"{"size": "A6"}"#.utf8))
                }
            }
        }
    }
}
