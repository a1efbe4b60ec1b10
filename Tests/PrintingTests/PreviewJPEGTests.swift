import CImageCodecs
import Contract
import Foundation
import Testing

@testable import PrintingService

/// Light previews: the budgeted JPEG encoder on a camera-like photo, and how a request chooses
/// JPEG or PNG.
@Suite("printing: preview JPEG within its byte budget, and the preview's image type")
struct PreviewJPEGTests {
    /// An 8-megapixel (3264 × 2448) camera-like photo as a camera writes it (JPEG quality 90,
    /// 4:2:0): colour gradients with per-pixel noise, as the printing benchmark's photo.
    static func cameraPhoto() -> [UInt8] {
        let (width, height) = (3264, 2448)
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        var state: UInt32 = 0x9E37_79B9
        for y in 0..<height {
            for x in 0..<width {
                state ^= state << 13
                state ^= state >> 17
                state ^= state << 5
                let noise = Int(state & 31) - 16
                let index = (y * width + x) * 3
                rgb[index] = UInt8(clamping: x * 255 / width + noise)
                rgb[index + 1] = UInt8(clamping: y * 255 / height + noise)
                rgb[index + 2] = UInt8(clamping: (x + y) * 255 / (width + height) / 2 + 64 + noise)
            }
        }
        let handle = tjInitCompress()!
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let result = rgb.withUnsafeBufferPointer {
            tjCompress2(
                handle, $0.baseAddress, Int32(width), 0, Int32(height), Int32(TJPF_RGB.rawValue), &output, &size,
                Int32(TJSAMP_420.rawValue), 90, 0)
        }
        precondition(result == 0, "tjCompress2 failed")
        defer { tjFree(output) }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }

    /// The mean of each of blue, green and red over BGRX pixels.
    static func means(_ pixels: DecodedPixels) -> [Double] {
        var sums = [0.0, 0.0, 0.0]
        for index in stride(from: 0, to: pixels.width * pixels.height * 4, by: 4) {
            for channel in 0..<3 { sums[channel] += Double(pixels.bytes[index + channel]) }
        }
        return sums.map { $0 / Double(pixels.width * pixels.height) }
    }

    @Test("a 1080-pixel A6 front of an 8-megapixel photo is a JPEG under 60 KB that decodes to the same picture")
    func cameraFront() throws {
        let photo = Self.cameraPhoto()
        let dpi = PostcardRenderer.dpi(width: 1080, size: .a6)
        let scale = PostcardContent.decodeScale(width: 3264, height: 2448, size: .a6, edits: [], dpi: dpi)
        let image = try PixelDecoder.decode(photo, format: .jpeg, minimumScale: scale)
        let content = PostcardContent(size: .a6, image: image)

        let jpeg = PostcardRenderer.preview(content, side: .front, width: 1080, format: .jpeg)
        #expect(jpeg.count <= 60_000, "\(jpeg.count) bytes")
        #expect(jpeg.count <= PreviewJPEG.budget(width: 1080, height: 766))
        #expect(jpeg.count > 10_000, "a photo, not a blank: \(jpeg.count) bytes")
        let decoded = try PixelDecoder.decode(jpeg, format: .jpeg)
        #expect(decoded.width == 1080 && decoded.height == 766)

        let png = PostcardRenderer.preview(content, side: .front, width: 1080, format: .png)
        let lossless = try PixelDecoder.decode(png, format: .png)
        #expect(lossless.width == 1080 && lossless.height == 766)
        #expect(png.count > 4 * jpeg.count, "PNG \(png.count) bytes, JPEG \(jpeg.count)")
        // The same picture: the colour means within a few levels of the lossless render, and
        // the gradient still runs the right way (red grows to the right, green downwards).
        for (lossy, exact) in zip(Self.means(decoded), Self.means(lossless)) {
            #expect(abs(lossy - exact) < 3, "\(lossy) vs \(exact)")
        }
        func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(decoded.bytes[(y * 1080 + x) * 4..<(y * 1080 + x) * 4 + 3]) }
        #expect(Int(pixel(1000, 380)[2]) - Int(pixel(80, 380)[2]) > 150, "red left to right")
        #expect(Int(pixel(540, 700)[1]) - Int(pixel(540, 60)[1]) > 100, "green top to bottom")
    }

    @Test("the encoder takes the highest quality that fits, the lowest when none does, and all qualities on a small budget's miss")
    func ladder() throws {
        let photo = try PixelDecoder.decode(Self.cameraPhoto(), format: .jpeg, minimumScale: 0.25)
        let (width, height) = (photo.width, photo.height)
        func encode(budget: Int) -> PreviewJPEG.Encoded? {
            photo.bytes.withUnsafeBufferPointer {
                PreviewJPEG.encode(
                    $0.baseAddress!, width: width, height: height, pitch: width * 4, format: TJPF_BGRX, budget: budget)
            }
        }
        let roomy = try #require(encode(budget: 10_000_000))
        #expect(roomy.quality == 85)
        let tight = try #require(encode(budget: roomy.bytes.count * 2 / 3))
        #expect(tight.quality < 85 && tight.bytes.count <= roomy.bytes.count * 2 / 3)
        // The next rung up would not have fitted.
        let above = try #require(encode(budget: tight.bytes.count - 1))
        #expect(above.quality < tight.quality)
        let hopeless = try #require(encode(budget: 100))
        #expect(hopeless.quality == PreviewJPEG.qualities[0] && hopeless.bytes.count > 100)
        #expect(try PixelDecoder.decode(tight.bytes, format: .jpeg).width == width)
        #expect(PreviewJPEG.budget(width: 128, height: 91) == PreviewJPEG.minimumBudget)
    }

    @Test("JPEG by default; PNG when format says so or Accept prefers image/png; format wins over Accept")
    func imageType() throws {
        #expect(try PreviewFormat.choose(format: nil, accept: nil) == .jpeg)
        #expect(try PreviewFormat.choose(format: nil, accept: "image/png") == .png)
        #expect(try PreviewFormat.choose(format: nil, accept: "image/png, image/jpeg") == .jpeg, "a tie")
        #expect(try PreviewFormat.choose(format: nil, accept: "image/jpeg;q=0.5, image/png;q=0.8") == .png)
        #expect(try PreviewFormat.choose(format: nil, accept: "image/png;q=0.4, image/*") == .jpeg)
        #expect(try PreviewFormat.choose(format: nil, accept: "image/webp, image/png, */*;q=0.8") == .png)
        #expect(try PreviewFormat.choose(format: nil, accept: "*/*") == .jpeg)
        #expect(try PreviewFormat.choose(format: nil, accept: "application/json") == .jpeg, "no 406")
        #expect(try PreviewFormat.choose(format: nil, accept: " IMAGE/PNG ; Q=1 ") == .png)
        #expect(try PreviewFormat.choose(format: "jpeg", accept: "image/png") == .jpeg)
        #expect(try PreviewFormat.choose(format: "PNG", accept: nil) == .png)
        let bad = #expect(throws: ServiceError.self) { try PreviewFormat.choose(format: "gif", accept: nil) }
        #expect(bad?.details?["field"] == "format")
        #expect(PreviewFormat.quality(of: "image/png", in: "image/png;q=0.3, image/*;q=0.9") == 0.3)
    }
}
