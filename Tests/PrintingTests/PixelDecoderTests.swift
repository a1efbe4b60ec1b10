import CImageCodecs
import Contract
import Foundation
import PrintingContract
import Testing

@testable import PrintingService

/// The renderer's decoders: every layout uploads accept decodes to the pixels Pillow decodes from
/// the same file (the committed fixtures of `Tests/image-fixtures`), and layouts made here.
@Suite("printing: pixel decoders")
struct PixelDecoderTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("image-fixtures")

    /// Every fixture, with the colour difference allowed per channel (JPEG decoders round apart).
    static let files: [(String, Int)] = [
        ("bmp-1bit.bmp", 0), ("bmp-4bit.bmp", 0), ("bmp-8bit-topdown.bmp", 0), ("bmp-16bit-555.bmp", 1),
        ("bmp-16bit-565-bitfields-topdown.bmp", 1), ("bmp-24bit.bmp", 0), ("bmp-32bit-topdown.bmp", 0),
        ("bmp-32bit-bitfields.bmp", 0), ("bmp-32bit-alpha-v5.bmp", 1), ("png-palette.png", 1), ("png-grey.png", 0),
        ("png-16bit.png", 1), ("png-alpha.png", 1), ("jpeg-progressive.jpg", 2), ("jpeg-cmyk.jpg", 2),
        ("jpeg-exif-6.jpg", 2), ("jpeg-exif-8.jpg", 2), ("jpeg-exif-3.jpg", 2),
    ]

    /// An RGB PNG decoded with libpng: width, height, 3 bytes a pixel.
    static func rgb(png bytes: [UInt8]) -> (width: Int, height: Int, pixels: [UInt8])? {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        defer { png_image_free(&image) }
        guard bytes.withUnsafeBufferPointer({ png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }) != 0
        else { return nil }
        image.format = UInt32(PNG_FORMAT_RGB)
        var pixels = [UInt8](repeating: 0, count: Int(image.width) * Int(image.height) * 3)
        let done = pixels.withUnsafeMutableBufferPointer { png_image_finish_read(&image, nil, $0.baseAddress, 0, nil) }
        return done != 0 ? (Int(image.width), Int(image.height), pixels) : nil
    }

    /// The largest channel difference between `decoded` shown with `orientation` and `reference`.
    static func largestDifference(
        _ decoded: DecodedPixels, orientation: Int, reference: (width: Int, height: Int, pixels: [UInt8])
    ) -> Int {
        let geometry = FrontGeometry(rawWidth: decoded.width, rawHeight: decoded.height, orientation: orientation)
        guard Int(geometry.oriented.width) == reference.width, Int(geometry.oriented.height) == reference.height
        else { return Int.max }
        var largest = 0
        for y in 0..<reference.height {
            for x in 0..<reference.width {
                let raw = geometry.raw(x: Double(x) + 0.5, y: Double(y) + 0.5)
                let source = (Int(raw.y.rounded(.down)) * decoded.width + Int(raw.x.rounded(.down))) * 4
                let target = (y * reference.width + x) * 3
                for channel in 0..<3 {
                    let have = Int(decoded.bytes[source + 2 - channel])
                    largest = max(largest, abs(have - Int(reference.pixels[target + channel])))
                }
            }
        }
        return largest
    }

    @Test("each fixture is accepted at upload and decodes, upright, to Pillow's pixels", arguments: files)
    func fixture(name: String, tolerance: Int) throws {
        let bytes = try [UInt8](Data(contentsOf: Self.fixtures.appendingPathComponent(name)))
        let stem = URL(fileURLWithPath: name).deletingPathExtension().lastPathComponent
        let reference = try #require(
            Self.rgb(png: try [UInt8](Data(contentsOf: Self.fixtures.appendingPathComponent("\(stem).ref.png")))))
        let format = try #require(ImageFormat.sniff(bytes))
        let inspected = try ImageInspector.inspect(bytes, contentType: format.rawValue, limits: .standard)
        #expect(inspected.width == reference.width && inspected.height == reference.height)
        let decoded = try PixelDecoder.decode(bytes, format: format)
        let difference = Self.largestDifference(decoded, orientation: inspected.exif.orientation, reference: reference)
        #expect(difference <= tolerance, "\(name): a channel differs by \(difference)")
        try PixelDecoder.probe(bytes, format: format)
    }

    // MARK: - BMP layouts made here

    static func le(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).map { UInt8((value >> ($0 * 8)) & 0xFF) } }

    /// A BMP of `width` × `height` whose pixel at (x, y) (y from the top) is `value(x, y)`: a
    /// palette index, or the packed pixel at 16 bits and more.
    static func bmp(
        bits: Int, width: Int, height: Int, topDown: Bool = false, headerSize: Int = 40, compression: Int = 0,
        palette: [(UInt8, UInt8, UInt8)] = [], masks: [UInt32] = [], value: (Int, Int) -> UInt32
    ) -> [UInt8] {
        let row = (width * bits + 31) / 32 * 4
        var data: [UInt8] = []
        for stored in 0..<height {
            let y = topDown ? stored : height - 1 - stored
            var line = [UInt8](repeating: 0, count: row)
            for x in 0..<width {
                let pixel = value(x, y)
                if bits < 8 {
                    line[x * bits / 8] |= UInt8(pixel) << (8 - bits - x * bits % 8)
                } else {
                    for byte in 0..<(bits / 8) { line[x * bits / 8 + byte] = UInt8((pixel >> (8 * UInt32(byte))) & 0xFF) }
                }
            }
            data += line
        }
        var header: [UInt8]
        var extra: [UInt8] = []
        if headerSize == 12 {
            header = le(12, 4) + le(width, 2) + le(height, 2) + le(1, 2) + le(bits, 2)
            for (r, g, b) in palette { extra += [b, g, r] }
        } else {
            header = le(headerSize, 4) + le(width, 4) + le(topDown ? -height : height, 4) + le(1, 2) + le(bits, 2)
            header += le(compression, 4) + le(data.count, 4) + le(2835, 4) + le(2835, 4) + le(palette.count, 4)
            header += le(0, 4)
            if headerSize == 40 {
                for mask in masks { extra += le(Int(mask), 4) }
            } else {
                for index in 0..<4 { header += le(Int(index < masks.count ? masks[index] : 0), 4) }
                header += [UInt8](repeating: 0, count: headerSize - header.count)
            }
            for (r, g, b) in palette { extra += [b, g, r, 0] }
        }
        let offset = 14 + header.count + extra.count
        return Array("BM".utf8) + le(offset + data.count, 4) + le(0, 4) + le(offset, 4) + header + extra + data
    }

    /// Blue, green, red of the decoded pixel at (x, y), as red, green, blue.
    static func colour(_ pixels: DecodedPixels, _ x: Int, _ y: Int) -> [UInt8] {
        let at = (y * pixels.width + x) * 4
        return [pixels.bytes[at + 2], pixels.bytes[at + 1], pixels.bytes[at]]
    }

    static let palette: [(UInt8, UInt8, UInt8)] = [
        (200, 30, 40), (30, 140, 60), (40, 60, 200), (240, 200, 40), (250, 130, 20), (120, 40, 160),
        (20, 180, 190), (250, 250, 250), (20, 20, 20), (150, 100, 60), (240, 120, 170), (110, 200, 90),
        (1, 2, 3), (4, 5, 6), (7, 8, 9), (10, 11, 12),
    ]

    @Test(
        "palette BMPs of 1, 4 and 8 bits, odd widths (row padding), both row orders, an OS/2 header; an index past the palette is black"
    )
    func paletteBMPs() throws {
        for bits in [1, 4, 8] {
            for topDown in [false, true] {
                for headerSize in topDown ? [40] : [12, 40] {
                    let count = 1 << min(bits, 4)
                    let colours = Array(Self.palette.prefix(count))
                    let (width, height) = (13, 5)
                    let index = { (x: Int, y: Int) in UInt32((x * 3 + y * 5) % count) }
                    let bytes = Self.bmp(
                        bits: bits, width: width, height: height, topDown: topDown, headerSize: headerSize,
                        palette: colours, value: index)
                    let pixels = try PixelDecoder.decode(bytes, format: .bmp)
                    #expect(pixels.width == width && pixels.height == height)
                    for y in 0..<height {
                        for x in 0..<width {
                            let (r, g, b) = colours[Int(index(x, y))]
                            #expect(
                                Self.colour(pixels, x, y) == [r, g, b],
                                "\(bits) bits, top-down \(topDown), header \(headerSize): (\(x), \(y))")
                        }
                    }
                }
            }
        }
        // Two colours in the palette of an 8-bit bitmap whose pixels use index 9.
        let short = Self.bmp(bits: 8, width: 3, height: 1, palette: Array(Self.palette.prefix(2))) { x, _ in
            x == 1 ? 9 : 1
        }
        let pixels = try PixelDecoder.decode(short, format: .bmp)
        #expect(Self.colour(pixels, 0, 0) == [30, 140, 60] && Self.colour(pixels, 1, 0) == [0, 0, 0])
    }

    @Test("16-bit BMPs: 5-5-5 by default, 5-6-5 by BI_BITFIELDS; 5 bits of 31 are 255")
    func sixteenBits() throws {
        let plain = Self.bmp(bits: 16, width: 3, height: 2) { x, y in
            [0x7C00, 0x03E0, 0x001F, 0x7FFF, 0x0000, 0x4210][x + 3 * y]
        }
        let decoded = try PixelDecoder.decode(plain, format: .bmp)
        #expect(Self.colour(decoded, 0, 0) == [255, 0, 0] && Self.colour(decoded, 1, 0) == [0, 255, 0])
        #expect(Self.colour(decoded, 2, 0) == [0, 0, 255] && Self.colour(decoded, 0, 1) == [255, 255, 255])
        #expect(Self.colour(decoded, 1, 1) == [0, 0, 0] && Self.colour(decoded, 2, 1) == [132, 132, 132])
        let fields = Self.bmp(
            bits: 16, width: 2, height: 1, topDown: true, compression: 3, masks: [0xF800, 0x07E0, 0x001F]
        ) { x, _ in x == 0 ? 0x07E0 : 0xF81F }
        let five = try PixelDecoder.decode(fields, format: .bmp)
        #expect(Self.colour(five, 0, 0) == [0, 255, 0] && Self.colour(five, 1, 0) == [255, 0, 255])
    }

    @Test(
        "32-bit BMPs: BGRX, masks in any order (40-byte header and V5), alpha on white paper, an alpha channel of zeros is opaque"
    )
    func thirtyTwoBits() throws {
        let plain = Self.bmp(bits: 32, width: 2, height: 2) { x, y in x == 0 ? 0x00C8_1E28 : UInt32(y) * 0x0A }
        let decoded = try PixelDecoder.decode(plain, format: .bmp)
        #expect(Self.colour(decoded, 0, 0) == [200, 30, 40] && Self.colour(decoded, 1, 1) == [0, 0, 10])
        let reordered = Self.bmp(
            bits: 32, width: 1, height: 1, compression: 3, masks: [0x0000_FF00, 0x00FF_0000, 0xFF00_0000]
        ) { _, _ in 0x1122_3344 }
        #expect(Self.colour(try PixelDecoder.decode(reordered, format: .bmp), 0, 0) == [0x33, 0x22, 0x11])
        let masks: [UInt32] = [0x00FF_0000, 0x0000_FF00, 0x0000_00FF, 0xFF00_0000]
        let translucent = Self.bmp(bits: 32, width: 2, height: 1, headerSize: 124, compression: 3, masks: masks) {
            x, _ in x == 0 ? 0x8000_0000 : 0xFF00_00FF
        }
        let composed = try PixelDecoder.decode(translucent, format: .bmp)
        #expect(Self.colour(composed, 0, 0) == [127, 127, 127], "black at half opacity on white")
        #expect(Self.colour(composed, 1, 0) == [0, 0, 255])
        let unset = Self.bmp(bits: 32, width: 1, height: 1, headerSize: 124, compression: 3, masks: masks) { _, _ in
            0x0012_3456
        }
        #expect(Self.colour(try PixelDecoder.decode(unset, format: .bmp), 0, 0) == [0x12, 0x34, 0x56])
    }

    @Test("RLE BMPs stay refused at upload with their reason; masks on a 24-bit BMP are corrupt")
    func refusedBMPs() {
        for compression in [1, 2] {
            let rle = Self.bmp(bits: compression == 1 ? 8 : 4, width: 4, height: 2, compression: compression,
                palette: Array(Self.palette.prefix(4))) { _, _ in 1 }
            let refused = #expect(throws: ImageRejection.self) {
                _ = try ImageInspector.inspect(rle, contentType: "image/bmp", limits: .standard)
            }
            #expect(refused?.reason == .unsupportedType && refused?.message.contains("RLE") == true)
        }
        let fields = Self.bmp(bits: 24, width: 2, height: 2, compression: 3, masks: [0xFF0000, 0xFF00, 0xFF]) {
            _, _ in 0
        }
        let corrupt = #expect(throws: ImageRejection.self) { _ = try PixelDecoder.decode(fields, format: .bmp) }
        #expect(corrupt?.reason == .corrupt)
    }

    // MARK: - CMYK JPEG

    /// A YCCK JPEG (TurboJPEG turns CMYK into YCCK and marks it Adobe) of 16×8 in two halves of
    /// the stored ink values `left` and `right`.
    static func ycck(left: [UInt8], right: [UInt8]) throws -> [UInt8] {
        let (width, height) = (16, 8)
        var cmyk: [UInt8] = []
        for _ in 0..<height { for x in 0..<width { cmyk += x < 8 ? left : right } }
        let handle = try #require(tjInitCompress())
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let result = cmyk.withUnsafeBufferPointer {
            tjCompress2(
                handle, $0.baseAddress, Int32(width), 0, Int32(height), Int32(TJPF_CMYK.rawValue), &output, &size,
                Int32(TJSAMP_444.rawValue), 100, 0)
        }
        defer { tjFree(output) }
        try #require(result == 0)
        return Array(UnsafeBufferPointer(start: try #require(output), count: Int(size)))
    }

    @Test("a YCCK JPEG (Adobe, inks stored inverted) is accepted at upload and decodes to RGB, at full and reduced scale")
    func ycckJPEG() throws {
        // Stored inverted: 255 is no ink. Left: full cyan, no black (0, 255, 255, 255) → (0, 255, 255)
        // in RGB; right: no colour ink, half black → grey 128.
        let bytes = try Self.ycck(left: [0, 255, 255, 255], right: [255, 255, 255, 128])
        #expect(PixelDecoder.hasAdobeMarker(bytes))
        let inspected = try ImageInspector.inspect(bytes, contentType: "image/jpeg", limits: .standard)
        #expect(inspected.width == 16 && inspected.height == 8)
        for scale in [1.0, 0.125] {
            let pixels = try PixelDecoder.decode(bytes, format: .jpeg, minimumScale: scale)
            let left = Self.colour(pixels, 0, 0).map(Int.init)
            let right = Self.colour(pixels, pixels.width - 1, pixels.height - 1).map(Int.init)
            #expect(zip(left, [0, 255, 255]).allSatisfy { abs($0 - $1) <= 4 }, "scale \(scale): \(left)")
            #expect(zip(right, [128, 128, 128]).allSatisfy { abs($0 - $1) <= 4 }, "scale \(scale): \(right)")
        }
    }

    @Test("CMYK to RGB: (1 − ink) × (1 − black); without an Adobe marker the inks are not inverted")
    func cmykConversion() throws {
        var inverted: [UInt8] = [255, 0, 255, 255, 255, 255, 255, 51]
        PixelDecoder.cmykToBGRX(&inverted, inverted: true)
        #expect(inverted == [255, 0, 255, 255, 51, 51, 51, 255], "magenta; then 80 % black")
        var plain: [UInt8] = [0, 255, 0, 0, 0, 0, 0, 204]
        PixelDecoder.cmykToBGRX(&plain, inverted: false)
        #expect(plain == [255, 0, 255, 255, 51, 51, 51, 255])
        let pillow = try [UInt8](Data(contentsOf: Self.fixtures.appendingPathComponent("jpeg-cmyk.jpg")))
        #expect(PixelDecoder.hasAdobeMarker(pillow))
        #expect(!PixelDecoder.hasAdobeMarker(TestImages.jpeg(width: 8, height: 8)))
    }

    // MARK: - PNG

    @Test("a 16-bit PNG without gamma chunks is sRGB: its high bytes, not brightened as linear light")
    func sixteenBitPNG() throws {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        image.width = 2
        image.height = 1
        image.format = UInt32(PNG_FORMAT_RGB | PNG_FORMAT_FLAG_LINEAR)
        // libpng writes linear 16-bit data with a gAMA of 1.0; dropping that chunk leaves what
        // cameras and editors write: plain 16-bit values.
        let values: [UInt16] = [0x8000, 0x4000, 0x2000, 0xFFFF, 0x0000, 0x1000]
        var size = 0
        _ = values.withUnsafeBufferPointer {
            png_image_write_to_memory(&image, nil, &size, 0, $0.baseAddress, 0, nil)
        }
        var bytes = [UInt8](repeating: 0, count: size)
        let written = bytes.withUnsafeMutableBufferPointer { target in
            values.withUnsafeBufferPointer { png_image_write_to_memory(&image, target.baseAddress, &size, 0, $0.baseAddress, 0, nil) }
        }
        png_image_free(&image)
        try #require(written != 0)
        bytes = Self.removingChunks(["gAMA", "sRGB", "cHRM"], from: Array(bytes.prefix(size)))
        let pixels = try PixelDecoder.decode(bytes, format: .png)
        let first = Self.colour(pixels, 0, 0).map(Int.init)
        #expect(zip(first, [0x80, 0x40, 0x20]).allSatisfy { abs($0 - $1) <= 1 }, "\(first)")
        let second = Self.colour(pixels, 1, 0).map(Int.init)
        #expect(zip(second, [255, 0, 16]).allSatisfy { abs($0 - $1) <= 1 }, "\(second)")
    }

    /// `png` without the chunks of the given types.
    static func removingChunks(_ types: Set<String>, from png: [UInt8]) -> [UInt8] {
        var out = Array(png.prefix(8))
        var index = 8
        while index + 12 <= png.count {
            let length = png[index..<(index + 4)].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: png[(index + 4)..<(index + 8)], as: UTF8.self)
            let end = index + 12 + length
            if !types.contains(type) { out += png[index..<end] }
            index = end
        }
        return out
    }

    // MARK: - probe

    @Test("probe: an original that no longer decodes throws what rendering would; a whole one passes")
    func probe() throws {
        let jpeg = TestImages.jpeg(width: 64, height: 64)
        try PixelDecoder.probe(jpeg, format: .jpeg)
        #expect(throws: ImageRejection.self) { try PixelDecoder.probe(Array(jpeg.prefix(200)), format: .jpeg) }
        let bmp = TestImages.bmp(width: 9, height: 9)
        try PixelDecoder.probe(bmp, format: .bmp)
        #expect(throws: ImageRejection.self) { try PixelDecoder.probe(Array(bmp.prefix(60)), format: .bmp) }
        #expect(throws: ImageRejection.self) { try PixelDecoder.probe(Array("not a png".utf8), format: .png) }
    }
}
