import Contract
import PrintingContract
import ServiceKit

/// Whether a buyer may put an image on a card, asked of printing (`get_image` with `printable`, as
/// the buyer) when the order is placed, so that a foreign, unknown or undrawable image is refused
/// before the card is charged rather than failing the print job afterwards. Printing applies its
/// own rule: the buyer's own uploads, images of the public gallery, and any image for printers,
/// each one its renderer can decode.
public struct PrintingImageClient: Sendable {
    let bus: BusClient

    /// Asks printing through `bus`.
    public init(bus: BusClient) { self.bus = bus }

    /// Throws `not_found` naming `field` when `actor` may not use `imageId`, and printing's
    /// `failed_precondition` (`unprintable_image`) with `field` added when the image cannot be
    /// rendered; printing's other answers (`unavailable` when it is down) are passed on, so an
    /// order with an image is only taken once the image is known to be usable.
    public func check(_ imageId: String, field: String, actor: Actor, requestId: String) async throws(ServiceError) {
        do {
            _ = try await bus.call(
                Printing.GetImage.self, .init(id: imageId, printable: true),
                metadata: RequestMetadata(requestId: requestId, actor: actor))
        } catch let error where error.code == .notFound {
            throw ServiceError(
                .notFound, "no such image among your uploads or the gallery", details: ["field": .string(field)])
        } catch let error where error.code == .failedPrecondition {
            var details = error.details ?? [:]
            details["field"] = .string(field)
            throw ServiceError(.failedPrecondition, error.message, details: details)
        }
    }
}
