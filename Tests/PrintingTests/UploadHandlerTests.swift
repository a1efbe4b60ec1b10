import Contract
import Crypto
import Foundation
import PostgresNIO
import PrintingContract
import Store
import Testing

@testable import PrintingService

/// Resumable uploads (tus 1.0.0 core + creation) against the real PostgreSQL: the offset rule,
/// chunks that outlive the book that stored them (a restart), the finished image equal to the
/// bytes sent, the guards of `POST /v1/images`, the limits, expiry and the sweep, owners only.
@Suite("printing: resumable uploads", .serialized)
struct UploadHandlerTests {
    static func book(
        _ fixture: PrintingFixture, policy: UploadPolicy = UploadPolicy(maxLength: 2_000_000, maxOpenPerOwner: 3)
    ) throws -> (UploadHandler, ImageLibrary) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("uploads-\(UUID())")
        let images = ImageLibrary(
            client: fixture.client, originals: try OriginalsDirectory(root: root),
            limits: ImageLimits(maxBytes: 2_000_000, maxPixels: 20_000_000), clock: fixture.clock,
            logger: PrintingFixture.logger)
        let book = UploadHandler(
            images: images, store: UploadStore(client: fixture.client, logger: PrintingFixture.logger),
            transactions: Transactions(fixture.client, logger: PrintingFixture.logger), policy: policy,
            clock: fixture.clock, logger: PrintingFixture.logger)
        return (book, images)
    }

    static func user() -> Actor { Actor(userId: UUID().uuidString, roles: ["user"]) }

    static func append(_ book: UploadHandler, _ id: String, _ offset: Int, _ bytes: ArraySlice<UInt8>, _ actor: Actor)
        async throws -> Printing.UploadState
    {
        try await book.append(
            .init(id: id, offset: Int64(offset), data: Data(bytes).base64EncodedString()), actor: actor)
    }

    @Test(
        "chunks at the stored offset; a wrong offset is a conflict naming the stored one; the finished image is the bytes sent"
    )
    func resumeAndFinish() async throws {
        try await PrintingFixture.with(at: PrintingFixture.noon("2099-08-01")) { fixture in
            let (book, images) = try Self.book(fixture)
            let owner = Self.user()
            let photo = SampleGallery.photo(3, width: 640, height: 480)
            let created = try await book.create(.init(length: Int64(photo.count)), actor: owner)
            #expect(created.offset == 0 && created.length == Int64(photo.count) && created.image == nil)

            let cut = Int.random(in: 1..<(photo.count - 1))
            let first = try await Self.append(book, created.id, 0, photo[0..<cut], owner)
            #expect(first.offset == Int64(cut) && first.image == nil)

            let wrong = await #expect(throws: ServiceError.self) {
                _ = try await Self.append(book, created.id, 0, photo[0..<10], owner)
            }
            #expect(wrong?.code == .conflict && wrong?.details?["offset"] == .number(Double(cut)))
            let ahead = await #expect(throws: ServiceError.self) {
                _ = try await Self.append(book, created.id, cut + 5, photo[(cut + 5)...], owner)
            }
            #expect(ahead?.code == .conflict)

            // Another book on the same database (the service restarted) resumes where HEAD says.
            let (restarted, _) = try Self.book(fixture)
            let status = try await restarted.status(created.id, actor: owner)
            #expect(status.offset == Int64(cut))
            let done = try await Self.append(restarted, created.id, cut, photo[cut...], owner)
            #expect(done.offset == Int64(photo.count))
            let image = try #require(done.image)
            #expect(image.sha256 == SHA256.hash(data: photo).map { String(format: "%02x", $0) }.joined())
            #expect(image.bytes == photo.count && image.width == 640 && image.height == 480)
            #expect(try await images.info(image.id, actor: owner).sha256 == image.sha256)
            #expect(try await book.status(created.id, actor: owner).image?.id == image.id)
            // The chunks are gone; the image is what remains.
            let chunks = try await fixture.client.query(
                "SELECT count(*) FROM printing.upload_chunks WHERE upload_id = \(UUID(uuidString: created.id)!)",
                logger: PrintingFixture.logger)
            for try await count in chunks.decode(Int64.self) { #expect(count == 0) }
            // A replayed last PATCH answers the same image rather than a conflict.
            #expect(try await Self.append(book, created.id, photo.count, [], owner).image?.id == image.id)
        }
    }

    @Test("only the owner sees or appends; past Upload-Length and over the limit are refused")
    func ownersAndLimits() async throws {
        try await PrintingFixture.with(at: PrintingFixture.noon("2099-08-02")) { fixture in
            let (book, _) = try Self.book(fixture)
            let owner = Self.user()
            let other = Self.user()
            let created = try await book.create(.init(length: 100), actor: owner)
            for attempt in [
                { _ = try await book.status(created.id, actor: other) },
                { _ = try await Self.append(book, created.id, 0, [1, 2, 3], other) },
                { _ = try await book.status(UUID().uuidString, actor: owner) },
                { _ = try await book.status("not-an-id", actor: owner) },
            ] as [@Sendable () async throws -> Void] {
                let error = await #expect(throws: ServiceError.self) { try await attempt() }
                #expect(error?.code == .notFound)
            }
            let past = await #expect(throws: ServiceError.self) {
                _ = try await Self.append(book, created.id, 0, ArraySlice(repeating: 1, count: 101), owner)
            }
            #expect(past?.code == .invalidArgument && past?.details?["reason"] == .string("too_large"))
            let tooLarge = await #expect(throws: ServiceError.self) {
                _ = try await book.create(.init(length: 2_000_001), actor: owner)
            }
            #expect(tooLarge?.details?["reason"] == .string("too_large"))
            let empty = await #expect(throws: ServiceError.self) {
                _ = try await book.create(.init(length: 0), actor: owner)
            }
            #expect(empty?.details?["field"] == .string("Upload-Length"))
            let type = await #expect(throws: ServiceError.self) {
                _ = try await book.create(.init(length: 10, contentType: "image/gif"), actor: owner)
            }
            #expect(type?.details?["reason"] == .string("unsupported_type"))
            // Three open uploads at most (this policy): the fourth is rate limited.
            _ = try await book.create(.init(length: 10), actor: owner)
            _ = try await book.create(.init(length: 10), actor: owner)
            let fourth = await #expect(throws: ServiceError.self) {
                _ = try await book.create(.init(length: 10), actor: owner)
            }
            #expect(fourth?.code == .rateLimited)
            #expect(try await book.create(.init(length: 10), actor: other).offset == 0, "others have their own")
        }
    }

    @Test("bytes the image guards refuse end the upload with their reason; the declared type must match")
    func guards() async throws {
        try await PrintingFixture.with(at: PrintingFixture.noon("2099-08-03")) { fixture in
            let (book, _) = try Self.book(fixture)
            let owner = Self.user()
            let text = Array("this is not an image at all".utf8)
            let created = try await book.create(.init(length: Int64(text.count)), actor: owner)
            let refused = await #expect(throws: ServiceError.self) {
                _ = try await Self.append(book, created.id, 0, text[...], owner)
            }
            #expect(refused?.code == .invalidArgument && refused?.details?["reason"] == .string("wrong_type"))
            let gone = await #expect(throws: ServiceError.self) { _ = try await book.status(created.id, actor: owner) }
            #expect(gone?.code == .notFound)

            let png = TestImages.png(width: 30, height: 20)
            let declared = try await book.create(
                .init(length: Int64(png.count), contentType: "image/jpeg"), actor: owner)
            let mismatch = await #expect(throws: ServiceError.self) {
                _ = try await Self.append(book, declared.id, 0, png[...], owner)
            }
            #expect(mismatch?.details?["reason"] == .string("wrong_type"))
            let sniffed = try await book.create(.init(length: Int64(png.count)), actor: owner)
            #expect(try await Self.append(book, sniffed.id, 0, png[...], owner).image?.mediaType == "image/png")
        }
    }

    @Test(
        "an unfinished upload expires a day after its last bytes; the sweep deletes it and its chunks, never a finished one"
    )
    func expiryAndSweep() async throws {
        try await PrintingFixture.with(at: PrintingFixture.noon("2099-08-04")) { fixture in
            let (book, _) = try Self.book(fixture)
            let owner = Self.user()
            let png = TestImages.png(width: 30, height: 20)
            let open = try await book.create(.init(length: Int64(png.count)), actor: owner)
            _ = try await Self.append(book, open.id, 0, png[0..<10], owner)
            let finished = try await book.create(.init(length: Int64(png.count)), actor: owner)
            _ = try await Self.append(book, finished.id, 0, png[...], owner)
            fixture.clock.advance(by: 23 * 3_600)
            #expect(try await book.status(open.id, actor: owner).offset == 10, "still there after 23 hours")
            fixture.clock.advance(by: 2 * 3_600)
            let expired = await #expect(throws: ServiceError.self) { _ = try await book.status(open.id, actor: owner) }
            #expect(expired?.code == .notFound)
            #expect(try await book.store.sweep(now: fixture.clock.now()) >= 1)
            let rows = try await fixture.client.query(
                "SELECT count(*) FROM printing.uploads WHERE id = \(UUID(uuidString: open.id)!)",
                logger: PrintingFixture.logger)
            for try await count in rows.decode(Int64.self) { #expect(count == 0) }
            #expect(try await book.status(finished.id, actor: owner).image != nil)
        }
    }
}
