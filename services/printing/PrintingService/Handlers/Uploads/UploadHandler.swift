import Contract
import Foundation
import Logging
import PrintingContract
import Store

/// Resumable uploads (tus core): an append is one transaction that checks the offset under the
/// upload's lock, stores the chunk and moves the offset, so an acknowledged chunk is on disk and
/// two appends at one offset cannot both win. The finished upload becomes an image in the same
/// way as `upload_image`.
public struct UploadHandler: Sendable {
    let images: ImageLibrary
    let store: UploadStore
    let transactions: Transactions
    let policy: UploadPolicy
    let clock: any WallClock
    let logger: Logger

    /// Creates the handler.
    public init(
        images: ImageLibrary, store: UploadStore, transactions: Transactions, policy: UploadPolicy,
        clock: any WallClock, logger: Logger
    ) {
        self.images = images
        self.store = store
        self.transactions = transactions
        self.policy = policy
        self.clock = clock
        self.logger = logger
    }

    /// Starts an upload of `actor`'s.
    public func create(_ request: Printing.CreateUpload.Request, actor: Actor) async throws -> Printing.UploadState {
        let owner = try Self.owner(actor)
        try policy.check(length: request.length)
        if let type = request.contentType, ImageFormat(contentType: type) == nil {
            throw ImageRejection(
                .unsupportedType, "filetype \(type.prefix(100)) is not accepted; use image/jpeg, image/png or image/bmp"
            ).serviceError
        }
        let id = UUID()
        let now = clock.now()
        let expires = policy.expiry(after: now)
        let limit = policy.maxOpenPerOwner
        guard
            try await store.insert(
                id, owner: owner, length: request.length, contentType: request.contentType, at: now, expires: expires,
                openLimit: limit)
        else {
            throw ServiceError(
                .rateLimited, "at most \(limit) unfinished uploads at once; finish or let one expire",
                details: ["retryAfterSeconds": .number(60)])
        }
        return .init(id: id.uuidString.lowercased(), offset: 0, length: request.length, expiresAt: expires, image: nil)
    }

    /// Where upload `id` of `actor`'s stands; an upload whose last bytes are in but which is not
    /// an image yet (a crash between the two) is finished here.
    public func status(_ id: String, actor: Actor) async throws -> Printing.UploadState {
        let upload = try await find(id, actor: actor, in: nil)
        if upload.imageId == nil, upload.received == upload.length { return try await finish(upload, actor: actor) }
        return try await state(upload, actor: actor)
    }

    /// Appends `request.data` at `request.offset` to upload `request.id` of `actor`'s.
    public func append(_ request: Printing.AppendUpload.Request, actor: Actor) async throws -> Printing.UploadState {
        guard let data = Data(base64Encoded: request.data) else {
            throw ServiceError.invalidArgument("data is not base64", field: "data")
        }
        let now = clock.now()
        let upload = try await transactions.run { tx in
            var upload = try await find(request.id, actor: actor, in: tx, lock: true)
            if upload.imageId != nil || (upload.received == upload.length && data.isEmpty) { return upload }
            try policy.check(
                offset: request.offset, count: data.count, received: upload.received, length: upload.length)
            if !data.isEmpty {
                let start = upload.received
                upload.received += Int64(data.count)
                upload.expiresAt = policy.expiry(after: now)
                try await store.append(data, at: start, to: upload, in: tx)
            }
            return upload
        }
        if upload.imageId == nil, upload.received == upload.length { return try await finish(upload, actor: actor) }
        return try await state(upload, actor: actor)
    }

    /// Turns a complete upload into an image: its bytes through the upload guards, then (under
    /// the upload's lock, so two finishers make one image) the image, the link and the chunks
    /// gone. Bytes the guards refuse end the upload: it is deleted and the refusal answered.
    func finish(_ upload: UploadStore.Upload, actor: Actor) async throws -> Printing.UploadState {
        let bytes = try await store.bytes(of: upload)
        guard bytes.count == upload.length else {
            throw ServiceError(.internal, "upload \(upload.id) has \(bytes.count) of \(upload.length) bytes stored")
        }
        let inspected: InspectedImage
        do {
            guard let contentType = upload.contentType ?? ImageFormat.sniff(bytes)?.rawValue else {
                throw ImageRejection(.wrongType, "the upload is not a JPEG, PNG or BMP image").serviceError
            }
            inspected = try images.inspect(bytes, contentType: contentType)
        } catch {
            try await store.delete(upload.id)
            throw error
        }
        let imageId = try await transactions.run { tx in
            let current = try await find(upload.id.uuidString, actor: actor, in: tx, lock: true)
            if let existing = current.imageId { return existing }
            let image = try await images.store(bytes, image: inspected, owner: upload.owner, in: tx)
            guard let id = UUID(uuidString: image.id) else { throw ServiceError(.internal, "bad image id") }
            try await store.finish(upload.id, image: id, in: tx)
            return id
        }
        logger.info("upload finished", metadata: ["upload": "\(upload.id)", "image": "\(imageId)"])
        var done = upload
        done.imageId = imageId
        return try await state(done, actor: actor)
    }

    private func state(_ upload: UploadStore.Upload, actor: Actor) async throws -> Printing.UploadState {
        var image: Printing.ImageInfo?
        if let id = upload.imageId { image = try await images.info(id.uuidString, actor: actor) }
        return .init(
            id: upload.id.uuidString.lowercased(), offset: upload.received, length: upload.length,
            expiresAt: upload.expiresAt, image: image)
    }

    /// The upload `id` if `actor` owns it and it has not expired unfinished; otherwise 404.
    private func find(_ id: String, actor: Actor, in tx: Transaction?, lock: Bool = false) async throws
        -> UploadStore.Upload
    {
        let owner = try Self.owner(actor)
        guard let uuid = UUID(uuidString: id),
            let upload = try await store.find(uuid, owner: owner, now: clock.now(), in: tx, lock: lock)
        else { throw ServiceError.notFound("no such upload") }
        return upload
    }

    private static func owner(_ actor: Actor) throws -> UUID {
        guard let owner = UUID(uuidString: actor.userId) else { throw ServiceError(.unauthenticated, "no user id") }
        return owner
    }
}
