import Contract
import Foundation
import PrintingContract
import Store

/// The saved postcards (drafts): create, list, read, and change or delete under the revision an
/// `If-Match` names. The store checks the revision inside the statement that writes, so that of
/// two writers holding one revision exactly one wins and the other gets `precondition_failed`.
public struct DraftHandler: Sendable {
    let images: ImageLibrary
    let store: DraftStore
    let clock: any WallClock

    /// Drafts in `store`; front images are checked against `images` (the owner's uploads and the gallery).
    public init(images: ImageLibrary, store: DraftStore, clock: any WallClock) {
        self.images = images
        self.store = store
        self.clock = clock
    }

    /// Saves a new draft of `actor`'s at revision 1.
    public func create(_ content: Printing.DraftContent, actor: Actor) async throws -> Printing.Draft {
        let owner = try Self.owner(actor)
        return try await store.insert(try await checked(content, actor: actor), owner: owner, at: clock.now())
    }

    /// `actor`'s draft `id`; anyone else's, or none, is `not_found`.
    public func get(_ id: String, actor: Actor) async throws -> Printing.Draft {
        let owner = try Self.owner(actor)
        guard let uuid = UUID(uuidString: id), let draft = try await store.find(uuid, owner: owner) else {
            throw ServiceError.notFound("no such draft")
        }
        return draft
    }

    /// A page of `actor`'s drafts, newest first.
    public func list(_ request: PageRequest, actor: Actor) async throws -> Page<Printing.Draft> {
        let owner = try Self.owner(actor)
        let limit = try Printing.ListDrafts.pageSize.limit(request.limit)
        let before = try KeysetCursor.parse(request.cursor)
        let drafts = try await store.page(of: owner, before: before, limit: limit + 1)
        return Page(fetched: drafts, limit: limit) { KeysetCursor.text(at: $0.createdAt, id: $0.id) }
    }

    /// Replaces the content of `actor`'s draft when `If-Match` names its current revision.
    public func update(_ request: Printing.UpdateDraft.Request, actor: Actor) async throws -> Printing.Draft {
        let owner = try Self.owner(actor)
        let precondition = try Self.precondition(request.ifMatch)
        guard let uuid = UUID(uuidString: request.id) else { throw ServiceError.notFound("no such draft") }
        let content = try await checked(request.draft, actor: actor)
        if let draft = try await store.replace(uuid, owner: owner, with: content, if: precondition, at: clock.now()) {
            return draft
        }
        throw try await missed(uuid, owner: owner)
    }

    /// Deletes `actor`'s draft when `If-Match` names its current revision.
    @discardableResult
    public func delete(_ request: Printing.DeleteDraft.Request, actor: Actor) async throws -> Empty {
        let owner = try Self.owner(actor)
        let precondition = try Self.precondition(request.ifMatch)
        guard let uuid = UUID(uuidString: request.id) else { throw ServiceError.notFound("no such draft") }
        if try await store.delete(uuid, owner: owner, if: precondition) { return Empty() }
        throw try await missed(uuid, owner: owner)
    }

    /// Why a conditional write touched no row: the draft has another revision now (412), or is
    /// not the caller's (404).
    func missed(_ id: UUID, owner: UUID) async throws -> ServiceError {
        guard let revision = try await store.revision(of: id, owner: owner) else {
            return ServiceError.notFound("no such draft")
        }
        return ServiceError(
            .preconditionFailed,
            "the draft was changed since you read it (it is now at \(Printing.Draft.entityTag(revision: revision))); "
                + "read it again, then retry with its ETag in If-Match",
            details: ["etag": .string(Printing.Draft.entityTag(revision: revision))])
    }

    /// The checked content; the front image must be one `actor` may use.
    func checked(_ content: Printing.DraftContent, actor: Actor) async throws -> Printing.DraftContent {
        let content = try DraftRules.checked(content)
        if let imageId = content.imageId {
            do {
                _ = try await images.info(imageId, actor: actor)
            } catch let error as ServiceError where error.code == .notFound {
                throw ServiceError(
                    .notFound, "no such image among your uploads or the gallery", details: ["field": "imageId"])
            }
        }
        return content
    }

    static func precondition(_ ifMatch: String?) throws(ServiceError) -> Printing.DraftPrecondition {
        guard let precondition = Printing.DraftPrecondition(ifMatch: ifMatch) else {
            throw Printing.DraftPrecondition.missing
        }
        return precondition
    }

    static func owner(_ actor: Actor) throws -> UUID {
        guard let owner = UUID(uuidString: actor.userId) else { throw ServiceError(.unauthenticated, "no user id") }
        return owner
    }
}
