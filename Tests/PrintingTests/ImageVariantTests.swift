import CImageCodecs
import Contract
import Foundation
import PrintingContract
import Testing

@testable import PrintingService

/// Thumbnails and screen sizes (`image_content`) against the real PostgreSQL and real files:
/// the widths served, sizes and orientation of the JPEGs, made once and then read from disk, the
/// entity tag, who may see what, and the budget of a gallery page of 20 thumbnails.
@Suite("printing: thumbnails and screen sizes", .serialized)
struct ImageVariantTests {
    static func library(_ fixture: PrintingFixture) throws -> (ImageLibrary, ImageVariantHandler, URL) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("variants-\(UUID())")
        let images = ImageLibrary(
            client: fixture.client, originals: try OriginalsDirectory(root: root.appendingPathComponent("originals")),
            limits: ImageLimits(maxBytes: 20_000_000, maxPixels: 20_000_000), clock: fixture.clock,
            logger: PrintingFixture.logger)
        let variants = try ImageVariantHandler(images: images, root: root.appendingPathComponent("variants"))
        return (images, variants, root)
    }

    /// Width and height a JPEG's header declares.
    static func size(ofJPEG bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard let handle = tjInitDecompress() else { return nil }
        defer { tjDestroy(handle) }
        var (width, height, subsampling, colorspace): (Int32, Int32, Int32, Int32) = (0, 0, 0, 0)
        let result = bytes.withUnsafeBufferPointer {
            tjDecompressHeader3(handle, $0.baseAddress, UInt(bytes.count), &width, &height, &subsampling, &colorspace)
        }
        return result == 0 ? (Int(width), Int(height)) : nil
    }

    /// A raw image whose left half is red and right half blue, as JPEG with EXIF `orientation`.
    static func halves(width: Int, height: Int, orientation: UInt16) -> [UInt8] {
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let index = (y * width + x) * 3
                if x < width / 2 { rgb[index] = 230 } else { rgb[index + 2] = 230 }
            }
        }
        var bytes = SampleGallery.jpeg(rgb: rgb, width: width, height: height)
        let exif = TestImages.exif(
            orientation: orientation, latitude: (55, 42, 0), north: true, longitude: (13, 11, 0), east: true)
        let length = exif.count + 8
        bytes.insert(
            contentsOf: [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + Array("Exif".utf8) + [0, 0] + exif,
            at: 2)
        return bytes
    }

    /// Mean red and blue of the decoded JPEG's top and bottom rows.
    static func topAndBottom(_ jpeg: [UInt8]) throws -> (top: (red: Int, blue: Int), bottom: (red: Int, blue: Int)) {
        let pixels = try PixelDecoder.decode(jpeg, format: .jpeg)
        func row(_ y: Int) -> (red: Int, blue: Int) {
            var (red, blue) = (0, 0)
            for x in 0..<pixels.width {
                let index = (y * pixels.width + x) * 4
                blue += Int(pixels.bytes[index])
                red += Int(pixels.bytes[index + 2])
            }
            return (red / pixels.width, blue / pixels.width)
        }
        return (row(2), row(pixels.height - 3))
    }

    @Test("widths 128, 320 and 1080 only; never wider than the original; the tag names image and width")
    func rules() throws {
        let error = #expect(throws: ServiceError.self) {
            try ImageVariant(width: 100, imageWidth: 2000, imageHeight: 1500, sha256: "ab")
        }
        #expect(error?.code == .invalidArgument && error?.details?["field"] == .string("w"))
        #expect(throws: ServiceError.self) { try ImageVariant(width: 0, imageWidth: 20, imageHeight: 10, sha256: "ab") }
        let thumbnail = try ImageVariant(width: 128, imageWidth: 2000, imageHeight: 1500, sha256: "ab")
        #expect(thumbnail.width == 128 && thumbnail.height == 96)
        let small = try ImageVariant(width: 1080, imageWidth: 40, imageHeight: 30, sha256: "ab")
        #expect(small.width == 40 && small.height == 30)
        #expect(thumbnail.entityTag == "\"ab-w128-v1\"")
        #expect(thumbnail.isMatched(by: "\"zz\", W/\"ab-w128-v1\""))
        #expect(thumbnail.isMatched(by: "*"))
        #expect(!thumbnail.isMatched(by: "\"ab-w320-v1\""))
        #expect(!thumbnail.isMatched(by: nil))
    }

    @Test(
        "each width: a JPEG of that width, the aspect kept and the EXIF orientation applied; made once, then read from the kept file; If-None-Match answers without bytes"
    )
    func sizesAndOrientation() async throws {
        try await PrintingFixture.with(at: PrintingFixture.noon("2099-07-01")) { fixture in
            let (images, variants, root) = try Self.library(fixture)
            defer { try? FileManager.default.removeItem(at: root) }
            let owner = Actor(userId: UUID().uuidString, roles: ["user"])
            // Stored 2000 × 1500, left half red; orientation 6 shows it 1500 × 2000 turned a
            // quarter clockwise, so the red half is on top.
            let original = Self.halves(width: 2000, height: 1500, orientation: 6)
            let image = try await images.upload(
                .init(contentType: "image/jpeg", data: Data(original).base64EncodedString()), actor: owner)
            #expect(image.width == 1500 && image.height == 2000)
            for (width, height) in [(128, 171), (320, 427), (1080, 1440)] {
                let reply = try await variants.content(.init(id: image.id, width: width), actor: owner)
                let jpeg = try #require(Data(base64Encoded: reply.data).map { [UInt8]($0) })
                #expect(reply.mediaType == "image/jpeg" && !reply.notModified)
                #expect(reply.width == width && reply.height == height)
                let size = try #require(Self.size(ofJPEG: jpeg))
                #expect(size.width == width && size.height == height, "w=\(width): \(size)")
                let (top, bottom) = try Self.topAndBottom(jpeg)
                #expect(top.red > 180 && top.blue < 60 && bottom.blue > 180 && bottom.red < 60, "\(top) \(bottom)")
                #expect(reply.etag == "\"\(image.sha256)-w\(width)-v1\"")

                // Kept on disk: the file is the bytes answered, and a repeat answers them again.
                let variant = try ImageVariant(
                    width: width, imageWidth: image.width, imageHeight: image.height, sha256: image.sha256)
                let kept = try [UInt8](Data(contentsOf: variants.url(variant)))
                #expect(kept == jpeg)
                try Data([0xFF, 0xD8, 0xFF, 0xD9]).write(to: variants.url(variant))
                let again = try await variants.content(.init(id: image.id, width: width), actor: owner)
                #expect(again.data == Data([0xFF, 0xD8, 0xFF, 0xD9]).base64EncodedString(), "read, not made again")
                try Data(jpeg).write(to: variants.url(variant))

                let current = try await variants.content(
                    .init(id: image.id, width: width, ifNoneMatch: reply.etag), actor: owner)
                #expect(current.notModified && current.data.isEmpty && current.etag == reply.etag)
            }
            let refused = await #expect(throws: ServiceError.self) {
                _ = try await variants.content(.init(id: image.id, width: 64), actor: owner)
            }
            #expect(refused?.details?["field"] == .string("w"))
        }
    }

    @Test("an upload is its owner's (and printers'); another user gets 404; gallery images are anyone's")
    func access() async throws {
        try await PrintingFixture.with(at: PrintingFixture.noon("2099-07-02")) { fixture in
            let (images, variants, root) = try Self.library(fixture)
            defer { try? FileManager.default.removeItem(at: root) }
            let owner = Actor(userId: UUID().uuidString, roles: ["user"])
            let other = Actor(userId: UUID().uuidString, roles: ["user"])
            let printer = Actor(userId: UUID().uuidString, roles: ["printer"])
            let image = try await images.upload(
                .init(contentType: "image/jpeg", data: Data(SampleGallery.photo(1)).base64EncodedString()),
                actor: owner)
            let denied = await #expect(throws: ServiceError.self) {
                _ = try await variants.content(.init(id: image.id, width: 128), actor: other)
            }
            #expect(denied?.code == .notFound)
            #expect(try await variants.content(.init(id: image.id, width: 128), actor: printer).width == 128)
            let unknown = await #expect(throws: ServiceError.self) {
                _ = try await variants.content(.init(id: UUID().uuidString, width: 128), actor: owner)
            }
            #expect(unknown?.code == .notFound)

            let gallery = GalleryTests.handler(images)
            let item = try await gallery.add(
                .init(
                    contentType: "image/jpeg", data: Data(SampleGallery.photo(2)).base64EncodedString(),
                    title: "Lund", lat: 55.7, lon: 13.19), actor: GalleryTests.admin)
            #expect(try await variants.content(.init(id: item.imageId, width: 320), actor: other).width == 320)
        }
    }

    @Test("a gallery page of 20 thumbnails (w=128) of the sample gallery is under 400 KB in all")
    func galleryPageBudget() async throws {
        try await PrintingFixture.with(at: PrintingFixture.noon("2099-07-03")) { fixture in
            let (images, variants, root) = try Self.library(fixture)
            defer { try? FileManager.default.removeItem(at: root) }
            let gallery = GalleryTests.handler(images)
            // A spot of its own in the Southern Ocean, moved each run, so other runs' items sort after.
            let base = (lat: -60.0 - Double.random(in: 0..<5), lon: -150.0 + Double.random(in: 0..<60))
            var originals = 0
            for index in 0..<SampleGallery.count {
                let photo = SampleGallery.photo(index)
                originals += photo.count
                _ = try await gallery.add(
                    .init(
                        contentType: "image/jpeg", data: Data(photo).base64EncodedString(), title: "Sample \(index)",
                        lat: base.lat + Double(index) * 1e-5, lon: base.lon), actor: GalleryTests.admin)
            }
            let page = try await gallery.list(.init(lat: base.lat, lon: base.lon, limit: 20), actor: GalleryTests.admin)
            #expect(page.items.count == 20)
            #expect(page.items.allSatisfy { $0.title.hasPrefix("Sample ") })
            let user = Actor(userId: UUID().uuidString, roles: ["user"])
            var total = 0
            for item in page.items {
                let reply = try await variants.content(.init(id: item.imageId, width: 128), actor: user)
                let bytes = try #require(Data(base64Encoded: reply.data))
                #expect(reply.width == 128 && reply.height == 96)
                total += bytes.count
            }
            print("sample gallery: 20 thumbnails (w=128) \(total) bytes in all; the 20 originals \(originals) bytes")
            #expect(total <= 400_000, "20 thumbnails: \(total) bytes")
            #expect(total * 10 < originals, "thumbnails \(total) bytes, originals \(originals) bytes")
        }
    }
}
