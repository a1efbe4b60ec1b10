import CommonContract
import Contract
import Foundation
import Logging
import OrdersContract
import PostgresNIO
import Store

/// An order about to be written.
struct NewOrder: Sendable {
    let id: UUID
    let claim: KeyClaim
    let kind: String
    let content: OrderContent
    let breakdown: PriceBreakdown
    /// The card that pays; nil for an order that costs nothing.
    let card: PaymentMethodStore.Saved?
    let quoteId: UUID?
    /// The gift recipient's notice, sent once the order is paid (it never carries the price).
    let giftNotice: Orders.GiftReceived?
}

/// An order locked for a change, with its money flags.
struct LockedOrder: Sendable {
    let userId: UUID
    let kind: String
    /// The stored state's text (an unknown one is the caller's to report).
    let state: String
    let total: Money
    let authorization: String?
    let captured: Bool
    let released: Bool
    /// Production started: the hold is to be captured (then refunded if the job failed).
    let captureOwed: Bool
}

/// An order claimed for its outstanding payment work: a recovery (still `pending_payment`)
/// or a ``PaymentStep``.
struct DuePayment: Sendable {
    let orderId: UUID
    let userId: UUID
    let kind: String
    let state: OrderState
    let total: Money
    let content: OrderContent
    let giftNotice: Orders.GiftReceived?
    let authorization: String?
    let captured: Bool
    let released: Bool
    /// Production started: the hold is to be captured (then refunded if the job failed).
    let captureOwed: Bool
    /// What was given back so far (refunds in the ledger, e.g. one made at the processor).
    let refunded: Int64
    let token: String
    /// The lease this claim holds (the order's `payment_due_at` while it works).
    let lease: Date

    /// What a refund of the order gives back: the total less what was refunded already.
    var rest: Money { Money(amount: total.amount - refunded, currency: total.currency) }
}

/// One order as its owner reads it.
struct StoredOrder: Sendable {
    let owner: UUID
    let kind: String
    let state: String
    let breakdown: PriceBreakdown
    let content: OrderContent
    let paymentMethodId: UUID?
    let createdAt: Date
    let ecardImageURL: String?
}

/// An order's money as a refund sees it, locked.
struct RefundableOrder: Sendable {
    let orderId: UUID
    let userId: UUID
    let kind: String
    let state: String
    let total: Money
    let authorization: String?
    let captured: Bool
    /// Refunded in the ledger so far.
    let refunded: Int64
    /// Asked of the processor and not yet answered (refunds `pending`).
    let inFlight: Int64
}

/// Orders and their states (`orders.orders`, `orders.order_states`): the order, its state and
/// money flags, when its payment work is due, and the reads of the history.
public struct OrderStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// A store on `client`.
    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    // MARK: Placing and paying

    /// Writes the order as `pending_payment` (its first state, no ledger rows, no events) and
    /// names it under the key, in one statement; due for the recovery sweeper at `due`.
    func insertPending(_ order: NewOrder, now: Date, due: Date, in tx: Transaction) async throws {
        let encoder = Wire.makeEncoder()
        let breakdown = String(decoding: try encoder.encode(order.breakdown), as: UTF8.self)
        let details = String(decoding: try encoder.encode(order.content), as: UTF8.self)
        let notice = try order.giftNotice.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        try await tx.connection.fetch(
            InsertStatement(
                order: order, now: now, due: due, breakdown: breakdown, details: details, giftNotice: notice),
            logger: tx.logger)
    }

    /// The order's state, its row locked until the transaction ends; nil when there is no such
    /// order or its state is unknown.
    func lockState(_ orderId: UUID, in tx: Transaction) async throws -> OrderState? {
        let rows = try await tx.connection.fetch(
            "SELECT state FROM orders.orders WHERE id = \(orderId) FOR UPDATE", logger: tx.logger)
        var current: String?
        for try await state in rows.decode(String.self) { current = state }
        return current.flatMap(OrderState.init(rawValue:))
    }

    /// Writes how a payment ended (phase 3): state, authorization and money flags; nothing is
    /// due any more.
    func recordPayment(
        _ orderId: UUID, state: OrderState, authorization: String?, captured: Bool, released: Bool, now: Date,
        in tx: Transaction
    ) async throws {
        try await tx.connection.fetch(
            """
            UPDATE orders.orders
            SET state = \(state.rawValue), authorization_id = \(authorization), captured = \(captured),
                released = \(released), payment_due_at = NULL, updated_at = \(now)
            WHERE id = \(orderId)
            """, logger: tx.logger)
    }

    /// Keeps an order `pending_payment` while the buyer's 3-D Secure step runs: the provider's
    /// payment as its authorization, due at `due`. False when it had left `pending_payment`.
    func awaitAction(_ orderId: UUID, authorization: String?, now: Date, due: Date, in tx: Transaction) async throws
        -> Bool
    {
        let rows = try await tx.connection.fetch(
            """
            UPDATE orders.orders
            SET authorization_id = \(authorization), updated_at = \(now), payment_due_at = \(due)
            WHERE id = \(orderId) AND state = 'pending_payment'
            RETURNING id
            """, logger: tx.logger)
        var updated = false
        for try await _ in rows.decode(UUID.self) { updated = true }
        return updated
    }

    /// Records that the order reached `states` (in that order, each with an optional reason) at
    /// `now`, in one statement.
    func recordStates(
        _ states: [(state: OrderState, reason: String?)], order: UUID, at now: Date, in tx: Transaction
    ) async throws {
        try await tx.connection.fetch(
            """
            INSERT INTO orders.order_states (order_id, seq, state, at, reason)
            SELECT \(order), base.n + s.position, s.state, \(now), nullif(s.reason, '')
            FROM (SELECT coalesce(max(seq), 0) AS n FROM orders.order_states WHERE order_id = \(order)) base,
                 unnest(\(states.map(\.state.rawValue))::text[], \(states.map { $0.reason ?? "" })::text[])
                 WITH ORDINALITY AS s(state, reason, position)
            """, logger: tx.logger)
    }

    // MARK: Moving

    /// The order with its money flags, its row locked until the transaction ends.
    func lock(_ orderId: UUID, in tx: Transaction) async throws -> LockedOrder? {
        let rows = try await tx.connection.fetch(
            """
            SELECT user_id, kind, state, currency, total_amount, authorization_id, captured, released, capture_owed
            FROM orders.orders WHERE id = \(orderId) FOR UPDATE
            """, logger: tx.logger)
        var found: LockedOrder?
        for try await (user, kind, state, currency, amount, authorization, captured, released, owed) in rows.decode(
            (UUID, String, String, String, Int64, String?, Bool, Bool, Bool).self)
        {
            found = LockedOrder(
                userId: user, kind: kind, state: state, total: Money(amount: amount, currency: currency),
                authorization: authorization, captured: captured, released: released, captureOwed: owed)
        }
        return found
    }

    /// Moves the order to `target`; when `due`, marks it due for the settler now (a step already
    /// claimed, due in the future, keeps its lease: the settler that holds it looks again at what
    /// is due when it commits).
    func move(_ orderId: UUID, to target: OrderState, captureOwed: Bool, due: Bool, now: Date, in tx: Transaction)
        async throws
    {
        try await tx.connection.fetch(
            """
            UPDATE orders.orders SET state = \(target.rawValue), updated_at = \(now), capture_owed = \(captureOwed),
                payment_due_at = CASE WHEN \(due) THEN greatest(coalesce(payment_due_at, \(now)), \(now))
                                      ELSE payment_due_at END
            WHERE id = \(orderId)
            """, logger: tx.logger)
    }

    /// Keeps the rendered e-card's link of an e-card order.
    func setEcardImage(_ orderId: UUID, url: String, in tx: Transaction) async throws {
        try await tx.connection.fetch(
            "UPDATE orders.orders SET ecard_image_url = \(url) WHERE id = \(orderId) AND kind = 'ecard'",
            logger: tx.logger)
    }

    // MARK: Settling

    /// Claims the most overdue order (or `orderId`, if due) until `lease`, in a statement that
    /// commits at once.
    func claimDue(_ orderId: UUID?, now: Date, lease: Date) async throws -> DuePayment? {
        let rows = try await client.fetch(
            """
            UPDATE orders.orders o SET payment_due_at = \(lease)
            FROM (SELECT id FROM orders.orders
                  WHERE payment_due_at <= \(now) AND (\(orderId)::uuid IS NULL OR id = \(orderId))
                  ORDER BY payment_due_at LIMIT 1 FOR UPDATE SKIP LOCKED) due
            WHERE o.id = due.id
            RETURNING o.id, o.user_id, o.kind, o.state, o.currency, o.total_amount, o.details::text,
                      o.gift_notice::text, o.authorization_id, o.captured, o.released, o.capture_owed,
                      (SELECT coalesce(-sum(l.amount), 0)::bigint FROM orders.ledger l
                       WHERE l.order_id = o.id AND l.movement = 'refund'),
                      (SELECT pm.token FROM orders.payment_methods pm WHERE pm.id = o.payment_method_id)
            """, logger: logger)
        typealias Row = (
            UUID, UUID, String, String, String, Int64, String, String?, String?, Bool, Bool, Bool, Int64, String?
        )
        let decoder = Wire.makeDecoder()
        for try await row in rows.decode(Row.self) {
            guard let state = OrderState(rawValue: row.3) else {
                throw ServiceError(.internal, "order \(row.0) has an unknown state \(row.3)")
            }
            return DuePayment(
                orderId: row.0, userId: row.1, kind: row.2, state: state, total: Money(amount: row.5, currency: row.4),
                content: try decoder.decode(OrderContent.self, from: Data(row.6.utf8)),
                giftNotice: try row.7.map { try decoder.decode(Orders.GiftReceived.self, from: Data($0.utf8)) },
                authorization: row.8, captured: row.9, released: row.10, captureOwed: row.11, refunded: row.12,
                token: row.13 ?? "",
                lease: lease)
        }
        return nil
    }

    /// Ends a claim with nothing due, unless another claim took the order since (`lease`).
    func clearDue(_ orderId: UUID, lease: Date) async throws {
        try await client.fetch(
            """
            UPDATE orders.orders SET payment_due_at = NULL
            WHERE id = \(orderId) AND payment_due_at = \(lease)
            """, logger: logger)
    }

    /// Writes a payment step's outcome: state, money flags, and due again now when `more` is.
    func recordStep(
        _ orderId: UUID, state: OrderState, captured: Bool, released: Bool, more: Bool, now: Date, in tx: Transaction
    ) async throws {
        try await tx.connection.fetch(
            """
            UPDATE orders.orders
            SET state = \(state.rawValue), captured = \(captured), released = \(released), updated_at = \(now),
                payment_due_at = CASE WHEN \(more) THEN \(now) END
            WHERE id = \(orderId)
            """, logger: tx.logger)
    }

    /// Ends an order's money after a capture refused for good: `released`, in `state`, nothing due.
    func releaseRefusedCapture(_ orderId: UUID, state: OrderState, now: Date, in tx: Transaction) async throws {
        try await tx.connection.fetch(
            """
            UPDATE orders.orders
            SET state = \(state.rawValue), released = true, payment_due_at = NULL, updated_at = \(now)
            WHERE id = \(orderId)
            """, logger: tx.logger)
    }

    /// Marks the order due now if it is still `pending_payment` (a processor's word that its
    /// payment moved).
    func markPaymentDue(_ orderId: UUID, now: Date) async throws {
        try await client.fetch(
            """
            UPDATE orders.orders SET payment_due_at = \(now)
            WHERE id = \(orderId) AND state = 'pending_payment'
            """, logger: logger)
    }

    // MARK: Refunds and disputes

    /// The order's money as a refund sees it, its row locked.
    func lockRefundable(_ orderId: UUID, in tx: Transaction) async throws -> RefundableOrder? {
        try await refundable(
            """
            SELECT o.id, o.user_id, o.kind, o.state, o.currency, o.total_amount, o.authorization_id, o.captured,
                   (SELECT coalesce(-sum(l.amount), 0)::bigint FROM orders.ledger l
                    WHERE l.order_id = o.id AND l.movement = 'refund'),
                   (SELECT coalesce(sum(r.amount), 0)::bigint FROM orders.refunds r
                    WHERE r.order_id = o.id AND r.status = 'pending')
            FROM orders.orders o WHERE o.id = \(orderId) FOR UPDATE
            """, in: tx)
    }

    /// The order whose payment is the processor's `authorization`, as a refund sees it, its row
    /// locked.
    func lockRefundable(authorization: String, in tx: Transaction) async throws -> RefundableOrder? {
        try await refundable(
            """
            SELECT o.id, o.user_id, o.kind, o.state, o.currency, o.total_amount, o.authorization_id, o.captured,
                   (SELECT coalesce(-sum(l.amount), 0)::bigint FROM orders.ledger l
                    WHERE l.order_id = o.id AND l.movement = 'refund'),
                   (SELECT coalesce(sum(r.amount), 0)::bigint FROM orders.refunds r
                    WHERE r.order_id = o.id AND r.status = 'pending')
            FROM orders.orders o WHERE o.authorization_id = \(authorization) FOR UPDATE OF o
            """, in: tx)
    }

    private func refundable(_ query: PostgresQuery, in tx: Transaction) async throws -> RefundableOrder? {
        let rows = try await tx.connection.fetch(query, logger: tx.logger)
        var found: RefundableOrder?
        for try await (id, user, kind, state, currency, total, authorization, captured, refunded, inFlight)
            in rows.decode((UUID, UUID, String, String, String, Int64, String?, Bool, Int64, Int64).self)
        {
            found = RefundableOrder(
                orderId: id, userId: user, kind: kind, state: state, total: Money(amount: total, currency: currency),
                authorization: authorization, captured: captured, refunded: refunded, inFlight: inFlight)
        }
        return found
    }

    /// After a refund: the order's money `released` once `full`, and its state `state`.
    func recordRefund(_ orderId: UUID, full: Bool, state: OrderState, now: Date, in tx: Transaction) async throws {
        try await tx.connection.fetch(
            """
            UPDATE orders.orders SET released = released OR \(full), state = \(state.rawValue), updated_at = \(now)
            WHERE id = \(orderId)
            """, logger: tx.logger)
    }

    /// Marks the orders paid by `authorization` disputed, unless they are already; returns them.
    func markDisputed(authorization: String, now: Date, in tx: Transaction) async throws
        -> [(orderId: UUID, userId: UUID, kind: String, state: String, total: Money)]
    {
        let rows = try await tx.connection.fetch(
            """
            UPDATE orders.orders SET disputed_at = \(now), updated_at = \(now)
            WHERE authorization_id = \(authorization) AND disputed_at IS NULL
            RETURNING id, user_id, kind, state, currency, total_amount
            """, logger: tx.logger)
        var marked: [(orderId: UUID, userId: UUID, kind: String, state: String, total: Money)] = []
        for try await (id, user, kind, state, currency, total) in rows.decode(
            (UUID, UUID, String, String, String, Int64).self)
        {
            marked.append((id, user, kind, state, Money(amount: total, currency: currency)))
        }
        return marked
    }

    // MARK: Reading

    /// A page of `userId`'s orders, newest first, with each one's creation time in microseconds
    /// (the keyset cursor): at most `limit`, before the cursor when one is given.
    func list(
        userId: UUID, query: String?, from: Date?, to: Date?, cursorMicros: Int64?, cursorId: UUID?, limit: Int
    ) async throws -> [(summary: Orders.OrderSummary, micros: Int64)] {
        let rows = try await client.fetch(
            """
            SELECT id, kind, state, currency, total_amount, created_at,
                   (extract(epoch FROM created_at) * 1000000)::bigint, details::text
            FROM orders.orders
            WHERE user_id = \(userId)
              AND (\(query)::text IS NULL OR strpos(search_text, \(query)::text) > 0)
              AND (\(from)::timestamptz IS NULL OR created_at >= \(from)::timestamptz)
              AND (\(to)::timestamptz IS NULL OR created_at < \(to)::timestamptz)
              AND (\(cursorMicros)::bigint IS NULL
                   OR (created_at, id) < ('epoch'::timestamptz + \(cursorMicros)::bigint * interval '1 microsecond',
                                         \(cursorId)::uuid))
            ORDER BY created_at DESC, id DESC
            LIMIT \(limit)
            """, logger: logger)
        var items: [(summary: Orders.OrderSummary, micros: Int64)] = []
        let decoder = Wire.makeDecoder()
        for try await (id, kind, state, currency, amount, created, micros, details) in rows.decode(
            (UUID, String, String, String, Int64, Date, Int64, String).self)
        {
            let content = try decoder.decode(OrderContent.self, from: Data(details.utf8))
            items.append(
                (
                    Orders.OrderSummary(
                        id: id.uuidString.lowercased(), kind: kind, state: state,
                        total: Money(amount: amount, currency: currency), createdAt: created,
                        recipients: content.recipientNames),
                    micros
                ))
        }
        return items
    }

    /// Whether any order of `userId`'s, in any state, names image `image` on its postcard or e-card.
    func usesImage(_ image: UUID, userId: UUID) async throws -> Bool {
        let text = image.uuidString.lowercased()
        let rows = try await client.fetch(
            """
            SELECT EXISTS (
                SELECT 1 FROM orders.orders
                WHERE user_id = \(userId)
                  AND (lower(details->'postcard'->>'imageId') = \(text) OR lower(details->'ecard'->>'imageId') = \(text)))
            """, logger: logger)
        for try await used in rows.decode(Bool.self) { return used }
        return false
    }

    /// The order `orderId`, whoever's it is.
    func find(_ orderId: UUID) async throws -> StoredOrder? {
        let rows = try await client.fetch(
            """
            SELECT user_id, kind, state, breakdown::text, details::text, payment_method_id, created_at,
                   ecard_image_url
            FROM orders.orders WHERE id = \(orderId)
            """, logger: logger)
        for try await (owner, kind, state, breakdownText, detailsText, methodId, created, imageUrl) in rows.decode(
            (UUID, String, String, String, String, UUID?, Date, String?).self)
        {
            let decoder = Wire.makeDecoder()
            return StoredOrder(
                owner: owner, kind: kind, state: state,
                breakdown: try decoder.decode(PriceBreakdown.self, from: Data(breakdownText.utf8)),
                content: try decoder.decode(OrderContent.self, from: Data(detailsText.utf8)),
                paymentMethodId: methodId, createdAt: created, ecardImageURL: imageUrl)
        }
        return nil
    }

    /// Every state the order reached, in order.
    func history(_ orderId: UUID) async throws -> [Orders.StateChange] {
        let rows = try await client.fetch(
            "SELECT state, at, reason FROM orders.order_states WHERE order_id = \(orderId) ORDER BY seq",
            logger: logger)
        var changes: [Orders.StateChange] = []
        for try await (state, at, reason) in rows.decode((String, Date, String?).self) {
            changes.append(Orders.StateChange(state: state, at: at, reason: reason))
        }
        return changes
    }

    /// ``insertPending(_:now:due:in:)``'s statement, prepared once per connection: the order, its
    /// first state and its id under the key.
    struct InsertStatement: PostgresPreparedStatement {
        static let sql = """
            WITH new_order AS (
                INSERT INTO orders.orders
                    (id, user_id, kind, state, currency, total_amount, breakdown, details, search_text,
                     payment_method_id, quote_id, created_at, updated_at, payment_due_at, gift_notice)
                VALUES ($1, $2, $3, 'pending_payment', $4, $5, $6::jsonb, $7::jsonb, $8, $9, $10, $11, $11, $12,
                        $13::jsonb)
                RETURNING id
            ), new_state AS (
                INSERT INTO orders.order_states (order_id, seq, state, at)
                SELECT new_order.id, 1, 'pending_payment', $11 FROM new_order
            )
            UPDATE orders.idempotency_keys SET order_id = (SELECT id FROM new_order)
            WHERE user_id = $2 AND key = $14
            """
        static let bindingDataTypes: [PostgresDataType] = [
            .uuid, .uuid, .text, .text, .int8, .text, .text, .text, .uuid, .uuid, .timestamptz, .timestamptz, .text,
            .text,
        ]
        typealias Row = Void

        let order: NewOrder
        let now: Date
        let due: Date
        let breakdown: String
        let details: String
        let giftNotice: String?

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 14)
            bindings.append(order.id)
            bindings.append(order.claim.userId)
            bindings.append(order.kind)
            bindings.append(order.breakdown.total.currency)
            bindings.append(order.breakdown.total.amount)
            bindings.append(breakdown)
            bindings.append(details)
            bindings.append(order.content.searchText)
            bindings.append(order.card?.id)
            bindings.append(order.quoteId)
            bindings.append(now)
            bindings.append(due)
            bindings.append(giftNotice)
            bindings.append(order.claim.key)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws {}
    }
}
