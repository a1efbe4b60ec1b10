import CommonContract
import Contract
import Foundation
import PostgresNIO
import PrintingContract
import Testing

@testable import PrintingService

/// Saved postcards and the caller's uploads against PostgreSQL and a real data directory.
@Suite("printing: drafts (saved postcards) and the images they keep")
struct DraftHandlerTests {
    /// A library, the drafts and two users on a migrated database.
    struct World: Sendable {
        let fixture: PrintingFixture
        let images: ImageLibrary
        let drafts: DraftHandler
        let ann = Actor(userId: UUID().uuidString.lowercased(), roles: ["user"])
        let bob = Actor(userId: UUID().uuidString.lowercased(), roles: ["user"])

        func upload(_ actor: Actor) async throws -> Printing.ImageInfo {
            let bytes = TestImages.png(width: 8 + Int.random(in: 0...50), height: 6)
            return try await images.upload(
                .init(contentType: "image/png", data: Data(bytes).base64EncodedString()), actor: actor)
        }
    }

    static func with(_ body: @Sendable (World) async throws -> Void) async throws {
        try await PrintingFixture.with(at: Date(timeIntervalSince1970: 1_790_000_000)) { fixture in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("drafts-\(UUID())")
            defer { try? FileManager.default.removeItem(at: directory) }
            let images = ImageLibrary(
                client: fixture.client, originals: try OriginalsDirectory(root: directory), limits: .standard,
                clock: fixture.clock, logger: PrintingFixture.logger)
            let drafts = DraftHandler(
                images: images, store: DraftStore(client: fixture.client, logger: PrintingFixture.logger),
                clock: fixture.clock)
            try await body(World(fixture: fixture, images: images, drafts: drafts))
        }
    }

    static func code(_ error: any Error) -> ErrorCode? { (error as? ServiceError)?.code }

    static let address = PostalAddress(line1: "Storgatan 1", city: "Lund", country: "se")

    @Test("create, read, replace under If-Match: revision and ETag grow; stale 412, none 428, another's 404")
    func lifecycle() async throws {
        try await Self.with { world in
            let image = try await world.upload(world.ann)
            let created = try await world.drafts.create(
                .init(
                    kind: .postcard, imageId: image.id.uppercased(),
                    edits: [.object(["type": "filter", "name": "sepia"])],
                    greeting: "Hej!", size: "a6",
                    recipients: [
                        .init(name: "Ann Lund", address: Self.address),
                        .init(contactId: UUID().uuidString),
                    ]),
                actor: world.ann)
            #expect(created.revision == 1 && created.etag == "\"r1\"")
            #expect(created.size == "A6" && created.imageId == image.id)
            #expect(created.recipients[0].address?.country == "SE")
            #expect(try await world.drafts.get(created.id, actor: world.ann) == created)
            await #expect { _ = try await world.drafts.get(created.id, actor: world.bob) } throws: {
                Self.code($0) == .notFound
            }

            world.fixture.clock.advance(by: 60)
            let changed = try await world.drafts.update(
                .init(id: created.id, ifMatch: created.etag, draft: .init(kind: .ecard, greeting: "Hallo")),
                actor: world.ann)
            #expect(changed.revision == 2 && changed.etag == "\"r2\"" && changed.kind == .ecard)
            #expect(changed.imageId == nil && changed.recipients.isEmpty && changed.updatedAt > changed.createdAt)

            await #expect {
                _ = try await world.drafts.update(
                    .init(id: created.id, ifMatch: created.etag, draft: .init(kind: .postcard)), actor: world.ann)
            } throws: { error in
                Self.code(error) == .preconditionFailed && (error as? ServiceError)?.details?["etag"] == "\"r2\""
            }
            await #expect {
                _ = try await world.drafts.update(
                    .init(id: created.id, ifMatch: nil, draft: .init(kind: .postcard)), actor: world.ann)
            } throws: { Self.code($0) == .preconditionRequired }
            await #expect {
                _ = try await world.drafts.update(
                    .init(id: created.id, ifMatch: "W/\"r2\"", draft: .init(kind: .postcard)), actor: world.ann)
            } throws: { Self.code($0) == .preconditionFailed }
            await #expect {
                _ = try await world.drafts.update(
                    .init(id: created.id, ifMatch: changed.etag, draft: .init(kind: .postcard)), actor: world.bob)
            } throws: { Self.code($0) == .notFound }
            let third = try await world.drafts.update(
                .init(id: created.id, ifMatch: "\"r1\", \"r2\"", draft: .init(kind: .postcard, size: "A5")),
                actor: world.ann)
            #expect(third.revision == 3)

            await #expect {
                try await world.drafts.delete(.init(id: created.id, ifMatch: changed.etag), actor: world.ann)
            } throws: { Self.code($0) == .preconditionFailed }
            await #expect {
                try await world.drafts.delete(.init(id: created.id, ifMatch: nil), actor: world.ann)
            } throws: { Self.code($0) == .preconditionRequired }
            try await world.drafts.delete(.init(id: created.id, ifMatch: third.etag), actor: world.ann)
            await #expect { _ = try await world.drafts.get(created.id, actor: world.ann) } throws: {
                Self.code($0) == .notFound
            }
        }
    }

    @Test("a bad draft is a 400 naming the field; a foreign image 404 naming imageId")
    func refusals() async throws {
        try await Self.with { world in
            let bobs = try await world.upload(world.bob)
            let cases: [(Printing.DraftContent, String)] = [
                (.init(kind: .postcard, size: "A3"), "size"),
                (.init(kind: .postcard, imageId: "nope"), "imageId"),
                (.init(kind: .postcard, edits: [.object(["type": "brightness", "amount": 3])]), "edits[0].amount"),
                (.init(kind: .postcard, greeting: String(repeating: "x", count: 2001)), "greeting"),
                (.init(kind: .postcard, recipients: [.init(name: "Ann")]), "recipients[0]"),
                (.init(kind: .ecard, recipients: [.init(name: "Ann", email: "not-mail")]), "recipients[0].email"),
                (.init(kind: .postcard, recipients: [.init(contactId: "x")]), "recipients[0].contactId"),
                (
                    .init(kind: .postcard, recipients: [.init(contactId: UUID().uuidString, name: "Ann")]),
                    "recipients[0].contactId"
                ),
            ]
            for (content, field) in cases {
                await #expect {
                    _ = try await world.drafts.create(content, actor: world.ann)
                } throws: { error in
                    Self.code(error) == .invalidArgument
                        && (error as? ServiceError)?.details?["field"] == .string(field)
                }
            }
            await #expect {
                _ = try await world.drafts.create(.init(kind: .postcard, imageId: bobs.id), actor: world.ann)
            } throws: { error in
                Self.code(error) == .notFound && (error as? ServiceError)?.details?["field"] == "imageId"
            }
        }
    }

    @Test("two devices saving one revision at once: exactly one wins, every other gets 412")
    func concurrentEdits() async throws {
        try await Self.with { world in
            let draft = try await world.drafts.create(.init(kind: .postcard, greeting: "start"), actor: world.ann)
            let outcomes = try await withThrowingTaskGroup(of: ErrorCode?.self) { group in
                for device in 0..<12 {
                    group.addTask {
                        do {
                            _ = try await world.drafts.update(
                                .init(
                                    id: draft.id, ifMatch: draft.etag,
                                    draft: .init(kind: .postcard, greeting: "device \(device)")),
                                actor: world.ann)
                            return nil
                        } catch {
                            return Self.code(error) ?? .internal
                        }
                    }
                }
                var outcomes: [ErrorCode?] = []
                for try await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            #expect(outcomes.filter { $0 == nil }.count == 1)
            #expect(outcomes.filter { $0 == .preconditionFailed }.count == 11)
            let stored = try await world.drafts.get(draft.id, actor: world.ann)
            #expect(stored.revision == 2 && stored.greeting?.hasPrefix("device ") == true)
        }
    }

    @Test("drafts list newest first in keyset pages, only the owner's")
    func pages() async throws {
        try await Self.with { world in
            var made: [String] = []
            for index in 0..<5 {
                world.fixture.clock.advance(by: 1)
                made.append(
                    try await world.drafts.create(.init(kind: .postcard, greeting: "\(index)"), actor: world.ann).id)
            }
            _ = try await world.drafts.create(.init(kind: .ecard), actor: world.bob)
            let first = try await world.drafts.list(.init(limit: 2), actor: world.ann)
            let second = try await world.drafts.list(.init(cursor: first.nextCursor, limit: 2), actor: world.ann)
            let third = try await world.drafts.list(.init(cursor: second.nextCursor, limit: 2), actor: world.ann)
            #expect((first.items + second.items + third.items).map(\.id) == made.reversed())
            #expect(third.nextCursor == nil)
            await #expect { _ = try await world.drafts.list(.init(limit: 101), actor: world.ann) } throws: {
                Self.code($0) == .invalidArgument
            }
        }
    }

    @Test("images: the owner's uploads newest first; one used by a draft or an order is kept (409), else deleted")
    func imagesKeptAlive() async throws {
        try await Self.with { world in
            var uploads: [Printing.ImageInfo] = []
            for _ in 0..<3 {
                world.fixture.clock.advance(by: 1)
                uploads.append(try await world.upload(world.ann))
            }
            _ = try await world.upload(world.bob)
            let first = try await world.images.list(.init(limit: 2), actor: world.ann)
            let rest = try await world.images.list(.init(cursor: first.nextCursor, limit: 2), actor: world.ann)
            #expect((first.items + rest.items).map(\.id) == uploads.reversed().map(\.id) && rest.nextCursor == nil)

            let (drafted, ordered, free) = (uploads[0], uploads[1], uploads[2])
            let draft = try await world.drafts.create(.init(kind: .postcard, imageId: drafted.id), actor: world.ann)
            await #expect { try await world.images.delete(drafted.id, actor: world.ann) } throws: { error in
                let details = (error as? ServiceError)?.details
                return Self.code(error) == .conflict && details?["reason"] == "image_in_use"
                    && details?["usedBy"] == "draft"
            }
            let postcard = #"{"size": "A6", "imageId": "\#(ordered.id)", "recipients": []}"#
            try await world.fixture.client.query(
                """
                INSERT INTO printing.print_jobs (id, order_id, user_id, status, cards, postcard, created_at, updated_at)
                VALUES (\(UUID()), \(UUID().uuidString), \(world.ann.userId), 'queued', 1, \(postcard)::text::jsonb,
                        now(), now())
                """, logger: PrintingFixture.logger)
            await #expect { try await world.images.delete(ordered.id, actor: world.ann) } throws: { error in
                Self.code(error) == .conflict && (error as? ServiceError)?.details?["usedBy"] == "order"
            }
            await #expect { try await world.images.delete(free.id, actor: world.bob) } throws: {
                Self.code($0) == .notFound
            }
            // An order orders holds but printing has no job for yet (orders answers over the bus).
            await #expect {
                try await world.images.delete(free.id, actor: world.ann) { imageId in imageId == free.id }
            } throws: { error in
                Self.code(error) == .conflict && (error as? ServiceError)?.details?["usedBy"] == "order"
            }
            try await world.images.delete(free.id, actor: world.ann) { _ in false }
            await #expect { _ = try await world.images.info(free.id, actor: world.ann) } throws: {
                Self.code($0) == .notFound
            }
            // Once the draft is gone, nothing keeps its image.
            try await world.drafts.delete(.init(id: draft.id, ifMatch: "*"), actor: world.ann)
            try await world.images.delete(drafted.id, actor: world.ann)
            #expect(try await world.images.list(.init(), actor: world.ann).items.map(\.id) == [ordered.id])
        }
    }
}
