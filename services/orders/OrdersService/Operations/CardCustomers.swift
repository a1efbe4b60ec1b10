import Foundation
import Store

/// Saved cards made reusable where the provider wants a customer (Stripe: a PaymentMethod
/// that paid without a Customer can never pay again). One provider customer per user, kept in
/// `orders.payment_customers`; every card is attached to it before it is kept, and a card kept
/// before this (no `customer_id`) is attached on its next payment.
///
/// Each step stands alone, with no transaction open while the provider is called: look up the
/// user's customer; if there is none, find or make it at the provider (its idempotency key is
/// derived from the user, so a repeat after a crash gets the same one) and keep it (the first
/// kept wins, a racing second is dropped); attach the card (keyed by card and customer;
/// attaching again is harmless). A crash between any two steps leaves nothing a repeat does
/// not finish.
struct CardCustomers: Sendable {
    let store: PaymentMethodStore
    let provider: any PaymentProvider
    let clock: any WallClock

    /// `token` attached to `userId`'s customer: the token to keep (the provider may answer a
    /// new one) and the customer; unchanged with no customer when the provider has none.
    /// ``PaymentDeclined`` when the provider refuses the card for good.
    func attach(_ token: String, userId: UUID) async throws -> (token: String, customer: String?) {
        guard provider.usesCustomers else { return (token, nil) }
        let customer: String
        if let known = try await store.customer(userId: userId, provider: provider.name) {
            customer = known
        } else {
            guard let made = try await provider.customer(for: userId) else { return (token, nil) }
            customer = try await store.keepCustomer(made, userId: userId, provider: provider.name, now: clock.now())
        }
        return (try await provider.attach(token: token, customer: customer), customer)
    }
}
