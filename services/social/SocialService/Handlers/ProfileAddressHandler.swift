import Contract
import Foundation
import ServiceKit
import SocialContract
import Store

/// The profile's billing and shipping addresses, and the friends-may-see setting.
public struct ProfileAddressHandler: Sendable {
    let addresses: AddressStore
    let clock: any WallClock

    public init(addresses: AddressStore, clock: any WallClock) {
        self.addresses = addresses
        self.clock = clock
    }

    /// `get_addresses`.
    public func get(_ request: Empty, _ context: OperationContext) async throws -> Social.Addresses {
        try await addresses.addresses(of: try context.userId())
    }

    /// `set_addresses`: each address as a contact's is checked (street and city 1-200
    /// characters, an ISO country code); the refusal names the field.
    public func set(_ request: Social.Addresses, _ context: OperationContext) async throws -> Social.Addresses {
        let me = try context.userId()
        var checked = request
        checked.billingAddress = try request.billingAddress.map {
            try ContactRules.address($0, field: "billingAddress")
        }
        checked.shippingAddress = try request.shippingAddress.map {
            try ContactRules.address($0, field: "shippingAddress")
        }
        try await addresses.set(checked, of: me, now: clock.now())
        return checked
    }
}
