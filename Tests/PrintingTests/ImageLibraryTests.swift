import Contract
import Foundation
import PrintingContract
import Testing

@testable import PrintingService

/// Uploads against PostgreSQL and a real data directory.
@Suite("printing: image library in PostgreSQL and on disk")
struct ImageLibraryTests {
    @Test("an upload is stored once by content address, listed for its owner, 404 for others")
    func upload() async throws {
        try await PrintingFixture.with(at: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))) {
            world in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("printing-\(UUID())")
            defer { try? FileManager.default.removeItem(at: directory) }
            let originals = try OriginalsDirectory(root: directory)
            let library = ImageLibrary(
                client: world.client, originals: originals, limits: .standard, clock: world.clock,
                logger: PrintingFixture.logger)
            let ann = Actor(userId: UUID().uuidString.lowercased(), roles: ["user"])
            let bob = Actor(userId: UUID().uuidString.lowercased(), roles: ["user"])
            let exif = TestImages.exif(
                orientation: 8, latitude: (55, 42, 1692), north: true, longitude: (13, 11, 2196), east: true)
            let jpeg = TestImages.jpeg(width: 40, height: 20, exif: exif)
            let request = Printing.UploadImage.Request(
                contentType: "image/jpeg", data: Data(jpeg).base64EncodedString())
            let first = try await library.upload(request, actor: ann)
            let second = try await library.upload(request, actor: bob)
            #expect(first.width == 20 && first.height == 40 && first.orientation == 8)
            #expect(first.gps.map { abs($0.lat - 55.7047) < 0.0001 } == true)
            #expect(first.id != second.id && first.sha256 == second.sha256)
            let file = originals.url(sha256: first.sha256, format: .jpeg)
            #expect(try Data(contentsOf: file) == Data(jpeg))
            let stored = try FileManager.default.subpathsOfDirectory(atPath: directory.path).filter {
                $0.hasSuffix(".jpg")
            }
            #expect(stored.count == 1)
            #expect(try await library.info(first.id, actor: ann) == first)
            await #expect(throws: ServiceError.self) { _ = try await library.info(first.id, actor: bob) }
            let printer = Actor(userId: UUID().uuidString.lowercased(), roles: ["printer"])
            #expect(try await library.info(first.id, actor: printer).id == first.id)
            await #expect {
                _ = try await library.upload(
                    .init(contentType: "image/png", data: Data("not a png".utf8).base64EncodedString()), actor: ann)
            } throws: { ($0 as? ServiceError)?.details?["reason"] == .string("wrong_type") }
        }
    }
}
