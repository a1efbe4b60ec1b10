import CommonContract
import Contract
import Foundation

/// Operations and events of the `orders` service: quotes, currencies, saved cards, orders and
/// their history. Every amount is in integer minor units of its currency (cents, yen, ...).
public enum Orders {}

// MARK: - values

extension Orders {
    /// Someone an e-card goes to.
    public struct EmailRecipient: Codable, Sendable, Hashable {
        public var name: String?
        public var email: String
        public init(name: String? = nil, email: String) {
            self.name = name
            self.email = email
        }
    }

    /// One line of a price breakdown.
    public struct PriceLine: Codable, Sendable, Hashable {
        /// `printing`, `postage`, `ecard` or `gift`.
        public var kind: String
        /// What the line is for, e.g. `A6 postcard` or `postage to SE`.
        public var description: String
        /// The recipient's country, for postage lines.
        public var country: String?
        /// How many units.
        public var quantity: Int
        /// The price of one unit, rounded up to the minor unit.
        public var unitAmount: Int64
        /// `quantity × unitAmount`.
        public var amount: Int64
        public init(
            kind: String, description: String, country: String? = nil, quantity: Int, unitAmount: Int64, amount: Int64
        ) {
            self.kind = kind
            self.description = description
            self.country = country
            self.quantity = quantity
            self.unitAmount = unitAmount
            self.amount = amount
        }
    }

    /// A priced breakdown in one currency at one rate.
    public struct PriceBreakdown: Codable, Sendable, Hashable {
        public var lines: [PriceLine]
        public var total: Money
        /// The date of the exchange rates used (ECB reference date), `YYYY-MM-DD`.
        public var rateDate: String
        /// Units of `total.currency` per euro, as published (`1` for EUR).
        public var rate: String
        public init(lines: [PriceLine], total: Money, rateDate: String, rate: String) {
            self.lines = lines
            self.total = total
            self.rateDate = rateDate
            self.rate = rate
        }
    }
}

// MARK: - quotes and currencies

extension Orders {
    /// Where a quoted card goes: only the country matters for a postcard's price (an e-card
    /// needs none: only the number of recipients counts).
    public struct QuoteRecipient: Codable, Sendable, Hashable {
        public var country: String?
        public init(country: String?) { self.country = country }
    }

    /// `quote`: the price of a postcard of `size` (or of an e-card, `kind` `ecard`) to
    /// `recipients`, in `currency`.
    public enum Quote: ServiceOperation {
        public static let service = ServiceName.orders
        public static let name = "quote"

        public struct Request: Codable, Sendable, Hashable {
            /// `postcard` (the default) or `ecard`.
            public var kind: String?
            /// `A6`, `A5` or `A4`; required for a postcard, ignored for an e-card.
            public var size: String?
            public var recipients: [QuoteRecipient]
            /// ISO 4217; defaults to EUR.
            public var currency: String?
            public init(kind: String? = nil, size: String?, recipients: [QuoteRecipient], currency: String? = nil) {
                self.kind = kind
                self.size = size
                self.recipients = recipients
                self.currency = currency
            }
        }

        public struct Reply: Codable, Sendable, Hashable {
            /// Pass it as `quoteId` when ordering to be charged at this rate until `expiresAt`.
            public var quoteId: String
            public var lines: [PriceLine]
            public var total: Money
            public var rateDate: String
            public var rate: String
            public var expiresAt: Date
            public init(
                quoteId: String, lines: [PriceLine], total: Money, rateDate: String, rate: String, expiresAt: Date
            ) {
                self.quoteId = quoteId
                self.lines = lines
                self.total = total
                self.rateDate = rateDate
                self.rate = rate
                self.expiresAt = expiresAt
            }
        }
    }

    /// A currency an order can be priced and paid in.
    public struct Currency: Codable, Sendable, Hashable {
        /// ISO 4217 code.
        public var code: String
        /// Digits after the decimal point (0 for JPY and KRW).
        public var exponent: Int
        /// Units per euro, as published.
        public var rate: String
        public init(code: String, exponent: Int, rate: String) {
            self.code = code
            self.exponent = exponent
            self.rate = rate
        }
    }

    /// `list_currencies`: the currencies of the current rates.
    public enum ListCurrencies: ServiceOperation {
        public static let service = ServiceName.orders
        public static let name = "list_currencies"
        public typealias Request = Empty

        public struct Reply: Codable, Sendable, Hashable {
            /// Always `EUR`: the rates are euro reference rates.
            public var base: String
            public var rateDate: String
            public var currencies: [Currency]
            public init(base: String, rateDate: String, currencies: [Currency]) {
                self.base = base
                self.rateDate = rateDate
                self.currencies = currencies
            }
        }
    }

    /// `load_rates` (admin): new rates from an ECB `eurofxref-daily.xml` document.
    public enum LoadRates: ServiceOperation {
        public static let service = ServiceName.orders
        public static let name = "load_rates"

        public struct Request: Codable, Sendable, Hashable {
            public var xml: String
            public init(xml: String) { self.xml = xml }
        }

        public typealias Reply = ListCurrencies.Reply
    }
}

// MARK: - payment methods

extension Orders {
    /// A saved card as its owner sees it; the number is never kept.
    public struct PaymentMethod: Codable, Sendable, Hashable {
        public var id: String
        /// `visa`, `mastercard`, `amex`, `discover`, ... or `unknown`.
        public var brand: String
        public var last4: String
        public var expMonth: Int
        public var expYear: Int
        public init(id: String, brand: String, last4: String, expMonth: Int, expYear: Int) {
            self.id = id
            self.brand = brand
            self.last4 = last4
            self.expMonth = expMonth
            self.expYear = expYear
        }
    }

    /// `add_payment_method`: saves a card (tokenized by the payment provider).
    public enum AddPaymentMethod: ServiceOperation {
        public static let service = ServiceName.orders
        public static let name = "add_payment_method"

        /// The card; `number` and `cvc` are passed to the provider and then forgotten.
        public struct Request: Codable, Sendable, Hashable, CustomStringConvertible {
            public var number: String
            public var expMonth: Int
            public var expYear: Int
            public var cvc: String
            public init(number: String, expMonth: Int, expYear: Int, cvc: String) {
                self.number = number
                self.expMonth = expMonth
                self.expYear = expYear
                self.cvc = cvc
            }
            /// Never the number or the CVC.
            public var description: String { "card ending \(number.suffix(4)) exp \(expMonth)/\(expYear)" }
        }

        public typealias Reply = PaymentMethod
    }

    /// `save_tokenized_payment_method`: saves a card the app tokenized itself with the
    /// processor's SDK (Stripe: a PaymentMethod `pm_...`); the card's number never reaches us.
    /// Orders asks the processor for the card's brand, last four digits and expiry.
    public enum SaveTokenizedPaymentMethod: ServiceOperation {
        public static let service = ServiceName.orders
        public static let name = "save_tokenized_payment_method"

        /// The processor's id of the card (`pm_...`).
        public struct Request: Codable, Sendable, Hashable {
            public var paymentMethodId: String
            public init(paymentMethodId: String) { self.paymentMethodId = paymentMethodId }
        }

        public typealias Reply = PaymentMethod
    }

    /// `list_payment_methods`: the caller's saved cards, a page at a time.
    public enum ListPaymentMethods: ServiceOperation {
        public static let service = ServiceName.orders
        public static let name = "list_payment_methods"
        public static let pageSize = PageSize(default: 20, max: 100)
        public typealias Request = PageRequest
        public typealias Reply = Page<PaymentMethod>
    }

    /// A request about one thing by id.
    public struct ByID: Codable, Sendable, Hashable {
        public var id: String
        public init(id: String) { self.id = id }
    }

    /// `delete_payment_method`: forgets a saved card.
    public enum DeletePaymentMethod: ServiceOperation {
        public static let service = ServiceName.orders
        public static let name = "delete_payment_method"
        public typealias Request = ByID
        public typealias Reply = Empty
    }
}

// MARK: - orders

extension Orders {
    /// What a postcard order contains.
    public struct PostcardDetails: Codable, Sendable, Hashable {
        /// `A6`, `A5` or `A4`.
        public var size: String
        /// The front image (an upload id), if any.
        public var imageId: String?
        /// Edits applied to the image, in order; checked by ``PostcardEdit/list(_:field:)`` when the
        /// order is placed and applied by printing.
        public var edits: [JSONValue]?
        public var greeting: String?
        public var recipients: [PostalRecipient]
        /// In a request: contacts of the buyer's address book (social) to send the card to as
        /// well, each by its id; orders adds each as a recipient (name and postal address) before
        /// the order is placed, so a stored order never carries them.
        public var contactIds: [String]?
        public init(
            size: String, imageId: String? = nil, edits: [JSONValue]? = nil, greeting: String? = nil,
            recipients: [PostalRecipient], contactIds: [String]? = nil
        ) {
            self.size = size
            self.imageId = imageId
            self.edits = edits
            self.greeting = greeting
            self.recipients = recipients
            self.contactIds = contactIds
        }

        enum CodingKeys: String, CodingKey { case size, imageId, edits, greeting, recipients, contactIds }

        /// Decodes the details; `recipients` may be left out when `contactIds` names them all.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            size = try container.decode(String.self, forKey: .size)
            imageId = try container.decodeIfPresent(String.self, forKey: .imageId)
            edits = try container.decodeIfPresent([JSONValue].self, forKey: .edits)
            greeting = try container.decodeIfPresent(String.self, forKey: .greeting)
            contactIds = try container.decodeIfPresent([String].self, forKey: .contactIds)
            recipients =
                try container.decodeIfPresent([PostalRecipient].self, forKey: .recipients)
                ?? (contactIds == nil ? try container.decode([PostalRecipient].self, forKey: .recipients) : [])
        }
    }

    /// What an e-card order contains.
    public struct EcardDetails: Codable, Sendable, Hashable {
        /// The front image (an upload of the buyer's or a gallery image), if any.
        public var imageId: String?
        /// Edits applied to the image, free-form, passed on to printing.
        public var edits: [JSONValue]?
        /// `A6` (the default), `A5` or `A4`: the proportions the card is drawn with.
        public var size: String?
        public var greeting: String?
        /// How the card is signed on its back (default: the account's display name).
        public var senderName: String?
        /// How it is sent (``EcardDelivery``): `email` (the default: the server mails it to each
        /// recipient) or `device` (the phone's own mail app sends it; the server mails nothing).
        public var delivery: String?
        public var recipients: [EmailRecipient]
        /// In a request: contacts of the buyer's address book (social) to send the card to as
        /// well, each by its id; orders adds each as a recipient (name and e-mail address) before
        /// the order is placed, so a stored order never carries them.
        public var contactIds: [String]?
        public init(
            imageId: String? = nil, edits: [JSONValue]? = nil, size: String? = nil, greeting: String? = nil,
            senderName: String? = nil, delivery: String? = nil, recipients: [EmailRecipient],
            contactIds: [String]? = nil
        ) {
            self.delivery = delivery
            self.imageId = imageId
            self.edits = edits
            self.size = size
            self.greeting = greeting
            self.senderName = senderName
            self.recipients = recipients
            self.contactIds = contactIds
        }

        enum CodingKeys: String, CodingKey {
            case imageId, edits, size, greeting, senderName, delivery, recipients, contactIds
        }

        /// Decodes the details; `recipients` may be left out when `contactIds` names them all.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            imageId = try container.decodeIfPresent(String.self, forKey: .imageId)
            edits = try container.decodeIfPresent([JSONValue].self, forKey: .edits)
            size = try container.decodeIfPresent(String.self, forKey: .size)
            greeting = try container.decodeIfPresent(String.self, forKey: .greeting)
            senderName = try container.decodeIfPresent(String.self, forKey: .senderName)
            delivery = try container.decodeIfPresent(String.self, forKey: .delivery)
            contactIds = try container.decodeIfPresent([String].self, forKey: .contactIds)
            recipients =
                try container.decodeIfPresent([EmailRecipient].self, forKey: .recipients)
                ?? (contactIds == nil ? try container.decode([EmailRecipient].self, forKey: .recipients) : [])
        }
    }

    /// A catalog item as it was when bought (Gifter).
    public struct GiftItem: Codable, Sendable, Hashable {
        public var id: String
        public var title: String
        public var unitPrice: Money
        public var quantity: Int
        public init(id: String, title: String, unitPrice: Money, quantity: Int) {
            self.id = id
            self.title = title
            self.unitPrice = unitPrice
            self.quantity = quantity
        }
    }

    /// What a gift order contains, as stored and shown: the item as bought (its price is the
    /// catalogue's at that moment, never the client's), and for whom.
    public struct GiftDetails: Codable, Sendable, Hashable {
        public var item: GiftItem
        /// `self` or `friend`.
        public var recipientKind: String
        /// The friend's user id, when `recipientKind` is `friend`.
        public var friendUserId: String?
        public var friendName: String?
        public var message: String?
        /// Where it is shipped: the address the buyer entered, else the friend's shipping address
        /// when the friend shares it with friends (for a gift to oneself, the buyer's own), else none.
        public var shippingAddress: PostalAddress?
        public init(
            item: GiftItem, recipientKind: String, friendUserId: String? = nil, friendName: String? = nil,
            message: String? = nil, shippingAddress: PostalAddress? = nil
        ) {
            self.item = item
            self.recipientKind = recipientKind
            self.friendUserId = friendUserId
            self.friendName = friendName
            self.message = message
            self.shippingAddress = shippingAddress
        }
    }

    /// A gift as the buyer orders it: the catalogue item, how many, and for which friend (none:
    /// for the buyer). There is no price: orders asks social for the item's price now. A price
    /// sent anyway (`unitPrice`, `price` or an `item` snapshot) is refused with a 400, so a
    /// client that still sends one learns at once that it is not used.
    public struct GiftOrder: Codable, Sendable, Hashable {
        public var itemId: String
        public var quantity: Int
        public var friendUserId: String?
        public var message: String?
        public var shippingAddress: PostalAddress?
        /// The price member the client sent anyway (`unitPrice`, `price` or `item`), if any; never encoded.
        public private(set) var sentPrice: String?

        public init(
            itemId: String, quantity: Int, friendUserId: String? = nil, message: String? = nil,
            shippingAddress: PostalAddress? = nil
        ) {
            self.itemId = itemId
            self.quantity = quantity
            self.friendUserId = friendUserId
            self.message = message
            self.shippingAddress = shippingAddress
        }

        enum CodingKeys: String, CodingKey { case itemId, quantity, friendUserId, message, shippingAddress }
        struct PriceKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init?(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            itemId = try container.decode(String.self, forKey: .itemId)
            quantity = try container.decode(Int.self, forKey: .quantity)
            friendUserId = try container.decodeIfPresent(String.self, forKey: .friendUserId)
            message = try container.decodeIfPresent(String.self, forKey: .message)
            shippingAddress = try container.decodeIfPresent(PostalAddress.self, forKey: .shippingAddress)
            let others = try decoder.container(keyedBy: PriceKey.self)
            sentPrice = ["unitPrice", "price", "item"].first { others.contains(PriceKey(stringValue: $0)!) }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(itemId, forKey: .itemId)
            try container.encode(quantity, forKey: .quantity)
            try container.encodeIfPresent(friendUserId, forKey: .friendUserId)
            try container.encodeIfPresent(message, forKey: .message)
            try container.encodeIfPresent(shippingAddress, forKey: .shippingAddress)
        }
    }

    /// How an e-card reaches its recipients.
    public enum EcardDelivery: String, Codable, Sendable, CaseIterable {
        /// The server mails it (notify), the default.
        case email
        /// The phone's own mail app sends it: the order carries the image link and a share text
        /// (``DeviceEcard``), and the server mails nothing.
        case device
    }

    /// What the phone attaches when it sends an e-card itself (`delivery` `device`).
    public struct DeviceEcard: Codable, Sendable, Hashable {
        /// Always `device`.
        public var delivery: String
        /// The rendered e-card's public link (`/v1/ecards/{token}`), once printing has rendered
        /// it; nil until then (ask `get_order` again).
        public var imageUrl: String?
        /// A text for the mail or message the phone composes (the greeting, who sends it, and
        /// the link once there is one).
        public var shareText: String
        public init(delivery: String = EcardDelivery.device.rawValue, imageUrl: String?, shareText: String) {
            self.delivery = delivery
            self.imageUrl = imageUrl
            self.shareText = shareText
        }
    }

    /// What an order is for: a printed postcard, an e-card, or a gift. The request and the
    /// stored order carry the raw value.
    public enum OrderKind: String, Codable, Sendable, CaseIterable {
        case postcard, ecard, gift

        /// Whether its money is taken when it is placed (nothing is printed first).
        public var capturedAtOnce: Bool { self != .postcard }
    }

    /// `place_order`: creates and pays an order, once per idempotency key (the metadata's
    /// ``RequestMetadata/idempotencyKey``, from the `Idempotency-Key` header).
    public enum PlaceOrder: ServiceOperation {
        public static let service = ServiceName.orders
        public static let name = "place_order"

        public struct Request: Codable, Sendable, Hashable {
            /// `postcard`, `ecard` or `gift`.
            public var kind: String
            public var postcard: PostcardDetails?
            public var ecard: EcardDetails?
            public var gift: GiftOrder?
            public var currency: String
            /// The saved card that pays; nil only for an e-card that costs nothing (`ECARD_PRICE`
            /// 0). Any other order without a card is `invalid_argument`.
            public var paymentMethodId: String?
            /// A quote to be charged at (its currency and rate), while it is valid.
            public var quoteId: String?
            /// A saved postcard of the buyer's (printing's drafts) to order instead of writing the
            /// card in `postcard` or `ecard`: orders reads it from printing before anything else
            /// and fills `postcard` or `ecard` from it. With `postcard`, `ecard` or `gift` as well
            /// it is `invalid_argument`; `kind` must be the draft's; someone else's draft is `not_found`.
            /// The idempotency key stands for the request as sent, `draftId` and all, not the draft's content.
            public var draftId: String?
            public init(
                kind: String, postcard: PostcardDetails? = nil, ecard: EcardDetails? = nil,
                gift: GiftOrder? = nil, currency: String, paymentMethodId: String? = nil, quoteId: String? = nil,
                draftId: String? = nil
            ) {
                self.kind = kind
                self.postcard = postcard
                self.ecard = ecard
                self.gift = gift
                self.currency = currency
                self.paymentMethodId = paymentMethodId
                self.quoteId = quoteId
                self.draftId = draftId
            }
        }

        public struct Reply: Codable, Sendable, Hashable {
            public var id: String
            public var state: String
            public var total: Money
            /// For an e-card the phone sends itself: the link (once rendered) and the share text.
            public var deviceEcard: DeviceEcard?
            public init(id: String, state: String, total: Money, deviceEcard: DeviceEcard? = nil) {
                self.id = id
                self.state = state
                self.total = total
                self.deviceEcard = deviceEcard
            }
        }
    }

    /// One state an order reached, and when.
    public struct StateChange: Codable, Sendable, Hashable {
        public var state: String
        public var at: Date
        public var reason: String?
        public init(state: String, at: Date, reason: String? = nil) {
            self.state = state
            self.at = at
            self.reason = reason
        }
    }

    /// An order in a history list.
    public struct OrderSummary: Codable, Sendable, Hashable {
        public var id: String
        public var kind: String
        public var state: String
        public var total: Money
        public var createdAt: Date
        /// Recipient names (or e-mail addresses), for the list.
        public var recipients: [String]
        public init(id: String, kind: String, state: String, total: Money, createdAt: Date, recipients: [String]) {
            self.id = id
            self.kind = kind
            self.state = state
            self.total = total
            self.createdAt = createdAt
            self.recipients = recipients
        }
    }

    /// An order in full.
    public struct OrderDetail: Codable, Sendable, Hashable {
        public var id: String
        public var kind: String
        public var state: String
        public var total: Money
        public var lines: [PriceLine]
        public var rateDate: String
        public var rate: String
        public var postcard: PostcardDetails?
        public var ecard: EcardDetails?
        public var gift: GiftDetails?
        public var paymentMethod: PaymentMethod?
        public var createdAt: Date
        public var history: [StateChange]
        /// For an e-card the phone sends itself: the link (once rendered) and the share text.
        public var deviceEcard: DeviceEcard?
        public init(
            id: String, kind: String, state: String, total: Money, lines: [PriceLine], rateDate: String, rate: String,
            postcard: PostcardDetails?, ecard: EcardDetails?, gift: GiftDetails?, paymentMethod: PaymentMethod?,
            createdAt: Date, history: [StateChange], deviceEcard: DeviceEcard? = nil
        ) {
            self.deviceEcard = deviceEcard
            self.id = id
            self.kind = kind
            self.state = state
            self.total = total
            self.lines = lines
            self.rateDate = rateDate
            self.rate = rate
            self.postcard = postcard
            self.ecard = ecard
            self.gift = gift
            self.paymentMethod = paymentMethod
            self.createdAt = createdAt
            self.history = history
        }
    }

    /// `list_orders`: the caller's orders, newest first.
    public enum ListOrders: ServiceOperation {
        public static let service = ServiceName.orders
        public static let name = "list_orders"

        public struct Request: Codable, Sendable, Hashable {
            /// Matches recipient names, addresses and e-mails (case-insensitive substring).
            public var query: String?
            /// Orders created at or after.
            public var from: Date?
            /// Orders created before.
            public var to: Date?
            /// From a previous page's `nextCursor`.
            public var cursor: String?
            /// 1...100, default 20.
            public var limit: Int?
            public init(
                query: String? = nil, from: Date? = nil, to: Date? = nil, cursor: String? = nil, limit: Int? = nil
            ) {
                self.query = query
                self.from = from
                self.to = to
                self.cursor = cursor
                self.limit = limit
            }

            // The API's query parameter is `q`.
            private enum CodingKeys: String, CodingKey {
                case query = "q"
                case from, to, cursor, limit
            }
        }

        public struct Reply: Codable, Sendable, Hashable {
            public var items: [OrderSummary]
            public var nextCursor: String?
            public init(items: [OrderSummary], nextCursor: String?) {
                self.items = items
                self.nextCursor = nextCursor
            }
        }
    }

    /// `get_order`: one of the caller's orders (admins see any).
    public enum GetOrder: ServiceOperation {
        public static let service = ServiceName.orders
        public static let name = "get_order"
        public typealias Request = ByID
        public typealias Reply = OrderDetail
    }

    /// `image_in_orders` (signed in): whether any of the caller's orders, in any state, puts image
    /// `id` on a card. Printing asks it, as the image's owner, before it deletes an upload, so an
    /// order placed but not yet printed keeps its image too.
    public enum ImageInOrders: ServiceOperation {
        public static let service = ServiceName.orders
        public static let name = "image_in_orders"
        public typealias Request = ByID

        public struct Reply: Codable, Sendable, Hashable {
            public var inUse: Bool
            public init(inUse: Bool) { self.inUse = inUse }
        }
    }

    /// `cancel_order`: cancels an order that has not gone into production; the hold is voided
    /// (or the charge refunded).
    public enum CancelOrder: ServiceOperation {
        public static let service = ServiceName.orders
        public static let name = "cancel_order"
        public typealias Request = ByID
        public typealias Reply = OrderDetail
    }
}

// MARK: - events

extension Orders {
    /// Topics the orders service publishes.
    public enum Topic {
        /// An order was paid (authorized); printing renders postcards on it. Payload ``OrderEvent``.
        public static let paid = "orders.paid"
        /// An order was canceled by its owner. Payload ``OrderEvent``.
        public static let canceled = "orders.canceled"
        /// A payment was declined or failed; notify tells the user. Payload ``OrderEvent``.
        public static let paymentFailed = "orders.payment_failed"
        /// Any state change. Payload ``OrderEvent``.
        public static let stateChanged = "orders.state_changed"
    }

    /// Event `orders.gift_received`: a paid gift for `userId` from a friend; notify tells the
    /// recipient. It never carries the price.
    public struct GiftReceived: Codable, Sendable, Hashable {
        public static let topic = "orders.gift_received"
        /// The recipient.
        public var userId: String
        /// The buyer's name as friends see it.
        public var fromName: String
        /// The item's title.
        public var title: String
        public init(userId: String, fromName: String, title: String) {
            self.userId = userId
            self.fromName = fromName
            self.title = title
        }
    }

    /// The payload of every orders event.
    public struct OrderEvent: Codable, Sendable, Hashable {
        public var orderId: String
        public var userId: String
        public var kind: String
        /// The state before the change (`nil` for a new order).
        public var from: String?
        public var state: String
        public var at: Date
        public var reason: String?
        public var total: Money
        /// For `orders.paid` of a postcard: what to print and where to send it.
        public var postcard: PostcardDetails?
        /// For `orders.paid` of an e-card: what to send to whom.
        public var ecard: EcardDetails?
        public init(
            orderId: String, userId: String, kind: String, from: String?, state: String, at: Date, reason: String?,
            total: Money, postcard: PostcardDetails? = nil, ecard: EcardDetails? = nil
        ) {
            self.orderId = orderId
            self.userId = userId
            self.kind = kind
            self.from = from
            self.state = state
            self.at = at
            self.reason = reason
            self.total = total
            self.postcard = postcard
            self.ecard = ecard
        }
    }
}

// MARK: - notices

/// The events orders appends for notify to tell the buyer. Each payload names the user
/// (`userId`) and carries the template's variables as strings.
extension Orders {
    /// Event `orders.succeeded`: an order went through (notify's kind `order_succeeded`).
    public struct OrderSucceeded: Codable, Sendable, Equatable {
        public static let topic = "orders.succeeded"
        public var userId: String
        public var orderId: String
        public init(userId: String, orderId: String) {
            self.userId = userId
            self.orderId = orderId
        }
    }

    /// Event `orders.failed`: an order failed (notify's kind `order_failed`).
    public struct OrderFailed: Codable, Sendable, Equatable {
        public static let topic = "orders.failed"
        public var userId: String
        public var orderId: String
        public var reason: String
        public init(userId: String, orderId: String, reason: String) {
            self.userId = userId
            self.orderId = orderId
            self.reason = reason
        }
    }

    /// Event `orders.refund_notice`: the buyer's notice of a refund (one made by an operator, or
    /// at the processor), appended with `orders.refunded` (notify's kind `order_refunded`).
    public struct OrderRefunded: Codable, Sendable, Equatable {
        public static let topic = "orders.refund_notice"
        public var userId: String
        public var orderId: String
        /// The amount given back, as the buyer reads it (`12.50 EUR`, `1200 JPY`).
        public var amount: String
        public init(userId: String, orderId: String, amount: String) {
            self.userId = userId
            self.orderId = orderId
            self.amount = amount
        }
    }

    /// Event `orders.dispute_notice`: the buyer's notice that their bank disputes an order's
    /// payment, appended with `orders.disputed` (notify's kind `order_disputed`).
    public struct OrderDisputed: Codable, Sendable, Equatable {
        public static let topic = "orders.dispute_notice"
        public var userId: String
        public var orderId: String
        public init(userId: String, orderId: String) {
            self.userId = userId
            self.orderId = orderId
        }
    }
}
