import Contract
import PrintingContract

/// Serves a ready e-card's image to anyone holding its token (the link in the card's message).
public struct ECardHandler: Sendable {
    let store: ECardStore

    /// Creates the handler.
    public init(store: ECardStore) {
        self.store = store
    }

    /// `ecard_image`: the JPEG of the ready e-card `request.token` names; 404 for any other token.
    public func image(_ request: Printing.ECardImage.Request) async throws -> Printing.ECardImage.Reply {
        try await store.image(token: request.token)
    }
}
