import Foundation
import Testing

@testable import PrintingService

/// The upload guards against real files made here, good and bad.
@Suite("printing: image upload guards")
struct ImageInspectorTests {
    let limits = ImageLimits.standard

    func reason(_ bytes: [UInt8], _ type: String, limits: ImageLimits = .standard) -> ImageRejection.Reason? {
        do {
            _ = try ImageInspector.inspect(bytes, contentType: type, limits: limits)
            return nil
        } catch {
            return error.reason
        }
    }

    @Test("a JPEG with EXIF orientation 6 and GPS: displayed size swapped, position read")
    func exifJPEG() throws {
        let exif = TestImages.exif(
            orientation: 6, latitude: (55, 42, 1692), north: true, longitude: (13, 11, 2196), east: true)
        let image = try ImageInspector.inspect(
            TestImages.jpeg(width: 64, height: 48, exif: exif), contentType: "image/jpeg", limits: limits)
        #expect(image.format == .jpeg)
        #expect(image.width == 48 && image.height == 64)
        #expect(image.exif.orientation == 6)
        #expect(abs((image.exif.latitude ?? 0) - 55.704_7) < 0.000_1)
        #expect(abs((image.exif.longitude ?? 0) - 13.189_4) < 0.000_1)
        let south = TestImages.exif(
            orientation: 1, latitude: (33, 51, 0), north: false, longitude: (151, 12, 0), east: true)
        let sydney = try ImageInspector.inspect(
            TestImages.jpeg(width: 16, height: 8, exif: south), contentType: "image/jpeg", limits: limits)
        #expect(sydney.width == 16 && (sydney.exif.latitude ?? 0) < -33.8)
    }

    @Test("PNG and BMP are accepted with their sizes; a JPEG without EXIF is upright with no GPS")
    func goodFiles() throws {
        let png = try ImageInspector.inspect(
            TestImages.png(width: 30, height: 20), contentType: "image/png", limits: limits)
        #expect(png.format == .png && png.width == 30 && png.height == 20)
        let bmp = try ImageInspector.inspect(
            TestImages.bmp(width: 7, height: 3), contentType: "image/bmp", limits: limits)
        #expect(bmp.format == .bmp && bmp.width == 7 && bmp.height == 3)
        let plain = try ImageInspector.inspect(
            TestImages.jpeg(width: 40, height: 30), contentType: "image/jpeg; charset=binary", limits: limits)
        #expect(plain.width == 40 && plain.exif.orientation == 1 && plain.exif.latitude == nil)
    }

    @Test("a truncated JPEG, a truncated PNG and a truncated BMP are `truncated`")
    func truncated() {
        let jpeg = TestImages.jpeg(width: 256, height: 256)
        #expect(reason(Array(jpeg.prefix(jpeg.count * 6 / 10)), "image/jpeg") == .truncated)
        let png = TestImages.png(width: 128, height: 128)
        #expect(reason(Array(png.prefix(png.count / 2)), "image/png") == .truncated)
        let bmp = TestImages.bmp(width: 50, height: 50)
        #expect(reason(Array(bmp.prefix(bmp.count - 10)), "image/bmp") == .truncated)
    }

    @Test("a PNG header claiming 100000×100000 is refused before decoding (`too_many_pixels`)")
    func bomb() {
        #expect(reason(TestImages.pngClaiming(width: 100_000, height: 100_000), "image/png") == .tooManyPixels)
        let small = ImageLimits(maxBytes: 25_000_000, maxPixels: 1_000)
        #expect(reason(TestImages.jpeg(width: 64, height: 64), "image/jpeg", limits: small) == .tooManyPixels)
        #expect(reason(TestImages.bmp(width: 100, height: 100), "image/bmp", limits: small) == .tooManyPixels)
    }

    @Test("a text file sent as PNG, a PNG sent as JPEG and a GIF type are refused with what they are")
    func wrongType() throws {
        let text = Array("hello, this is not a picture\n".utf8)
        #expect(reason(text, "image/png") == .wrongType)
        #expect(reason(TestImages.png(width: 4, height: 4), "image/jpeg") == .wrongType)
        #expect(reason(text, "image/gif") == .unsupportedType)
        do {
            _ = try ImageInspector.inspect(
                TestImages.png(width: 4, height: 4), contentType: "image/jpeg", limits: limits)
        } catch {
            #expect(error.message.contains("PNG"))
            #expect(error.serviceError.details?["reason"] == .string("wrong_type"))
        }
    }

    @Test("corrupt data inside a well-formed header is `corrupt`; more bytes than the limit is `too_large`")
    func corruptAndLarge() {
        var png = TestImages.png(width: 64, height: 64)
        for index in 60..<min(png.count - 12, 200) { png[index] ^= 0x5A }
        #expect(reason(png, "image/png") == .corrupt)
        let jpeg = TestImages.jpeg(width: 64, height: 64)
        #expect(reason(jpeg, "image/jpeg", limits: ImageLimits(maxBytes: 100, maxPixels: 50_000_000)) == .tooLarge)
    }
}
