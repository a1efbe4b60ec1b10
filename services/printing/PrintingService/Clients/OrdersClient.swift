import Contract
import OrdersContract
import ServiceKit

/// The orders service, as printing asks it whether an order names an image (before deleting it).
public struct OrdersClient: Sendable {
    let bus: BusClient

    /// Calls over `bus`.
    public init(bus: BusClient) {
        self.bus = bus
    }

    /// Whether an order of `actor`'s names image `imageId`; the call carries the caller's request id.
    public func imageInOrders(_ imageId: String, actor: Actor, requestId: String) async throws -> Bool {
        let metadata = RequestMetadata(requestId: requestId, actor: actor)
        return try await bus.call(Orders.ImageInOrders.self, .init(id: imageId), metadata: metadata).inUse
    }
}
