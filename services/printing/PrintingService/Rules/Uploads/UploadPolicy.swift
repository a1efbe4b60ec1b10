import Contract
import Foundation

/// The limits of resumable uploads: how large, how many open at once per user, how big one
/// append may be, and how long an unfinished upload is kept.
public struct UploadPolicy: Sendable, Hashable {
    /// The largest `Upload-Length` (the image limit, `IMAGE_MAX_BYTES`).
    public var maxLength: Int64
    /// Unfinished uploads one user may hold; one more is `rate_limited` (429).
    public var maxOpenPerOwner: Int
    /// The most bytes one append may carry (the gateway sends a PATCH body in pieces under it).
    public var maxChunkBytes: Int
    /// How long an unfinished upload lives after its last append.
    public var lifetime: Duration

    /// Creates a policy.
    public init(
        maxLength: Int64, maxOpenPerOwner: Int = 10, maxChunkBytes: Int = 8 << 20, lifetime: Duration = .seconds(86_400)
    ) {
        self.maxLength = maxLength
        self.maxOpenPerOwner = maxOpenPerOwner
        self.maxChunkBytes = maxChunkBytes
        self.lifetime = lifetime
    }

    /// When an upload touched at `now` expires.
    public func expiry(after now: Date) -> Date {
        now.addingTimeInterval(Double(lifetime.components.seconds))
    }

    /// Checks an announced length: positive and within ``maxLength`` (`too_large` otherwise).
    public func check(length: Int64) throws(ServiceError) {
        guard length > 0 else {
            throw ServiceError.invalidArgument("Upload-Length must be a positive integer", field: "Upload-Length")
        }
        guard length <= maxLength else {
            throw ServiceError(
                .invalidArgument, "the upload would have \(length) bytes; the limit is \(maxLength)",
                details: ["reason": "too_large", "field": "Upload-Length"])
        }
    }

    /// Checks an append of `count` bytes at `offset` to an upload at `received` of `length`:
    /// the offset must be the stored one (`conflict` otherwise, with the stored offset), and the
    /// bytes must not run past the announced length.
    public func check(offset: Int64, count: Int, received: Int64, length: Int64) throws(ServiceError) {
        guard offset == received else {
            throw ServiceError(
                .conflict, "Upload-Offset is \(offset) but the upload has \(received) bytes",
                details: ["field": "Upload-Offset", "offset": .number(Double(received))])
        }
        guard count <= maxChunkBytes else {
            throw ServiceError.invalidArgument("one append may carry at most \(maxChunkBytes) bytes", field: "body")
        }
        guard Int64(count) <= length - received else {
            throw ServiceError(
                .invalidArgument, "the body runs past Upload-Length (\(length) bytes)",
                details: ["reason": "too_large", "field": "body"])
        }
    }
}
