import CImageCodecs
import Foundation

/// Real image files made in the test: JPEG and PNG through libjpeg-turbo and libpng, BMP by
/// hand, and the bad ones derived from them.
enum TestImages {
    /// Noise, so that the JPEG's scan data is most of the file.
    static func pixels(width: Int, height: Int) -> [UInt8] {
        var state: UInt32 = 2_463_534_242
        return (0..<(width * height * 3)).map { _ in
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            return UInt8(truncatingIfNeeded: state)
        }
    }

    /// A baseline JPEG of `width × height`, optionally with an EXIF segment after SOI.
    static func jpeg(width: Int, height: Int, exif: [UInt8]? = nil) -> [UInt8] {
        let handle = tjInitCompress()!
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let rgb = pixels(width: width, height: height)
        let result = rgb.withUnsafeBufferPointer {
            tjCompress2(
                handle, $0.baseAddress, Int32(width), 0, Int32(height), Int32(TJPF_RGB.rawValue), &output, &size,
                Int32(TJSAMP_420.rawValue), 90, 0)
        }
        precondition(result == 0, "tjCompress2 failed")
        defer { tjFree(output) }
        var bytes = Array(UnsafeBufferPointer(start: output, count: Int(size)))
        if let exif {
            let length = exif.count + 8
            let segment: [UInt8] =
                [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + Array("Exif".utf8) + [0, 0]
            bytes.insert(contentsOf: segment + exif, at: 2)
        }
        return bytes
    }

    /// A big-endian TIFF block with an orientation and a GPS position in degrees/minutes/seconds.
    static func exif(
        orientation: UInt16, latitude: (UInt32, UInt32, UInt32), north: Bool,
        longitude: (UInt32, UInt32, UInt32), east: Bool
    ) -> [UInt8] {
        func u16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
        func u32(_ value: UInt32) -> [UInt8] { u16(UInt16(value >> 16)) + u16(UInt16(value & 0xFFFF)) }
        func entry(_ tag: UInt16, _ type: UInt16, _ count: UInt32, _ value: [UInt8]) -> [UInt8] {
            u16(tag) + u16(type) + u32(count) + value + [UInt8](repeating: 0, count: 4 - value.count)
        }
        let ifd0Offset: UInt32 = 8
        let gpsOffset = ifd0Offset + 2 + 2 * 12 + 4
        let rationalsOffset = gpsOffset + 2 + 4 * 12 + 4
        var tiff: [UInt8] = Array("MM".utf8) + u16(42) + u32(ifd0Offset)
        tiff += u16(2) + entry(0x0112, 3, 1, u16(orientation)) + entry(0x8825, 4, 1, u32(gpsOffset)) + u32(0)
        tiff += u16(4)
        tiff += entry(0x0001, 2, 2, Array((north ? "N" : "S").utf8) + [0])
        tiff += entry(0x0002, 5, 3, u32(rationalsOffset))
        tiff += entry(0x0003, 2, 2, Array((east ? "E" : "W").utf8) + [0])
        tiff += entry(0x0004, 5, 3, u32(rationalsOffset + 24)) + u32(0)
        for part in [latitude.0, latitude.1, latitude.2, longitude.0, longitude.1, longitude.2] {
            tiff += u32(part) + u32(part == latitude.2 || part == longitude.2 ? 100 : 1)
        }
        return tiff
    }

    /// An 8-bit RGB PNG of `width × height`.
    static func png(width: Int, height: Int) -> [UInt8] {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        image.width = UInt32(width)
        image.height = UInt32(height)
        image.format = UInt32(PNG_FORMAT_RGB)
        let rgb = pixels(width: width, height: height)
        var size = 0
        _ = rgb.withUnsafeBufferPointer { png_image_write_to_memory(&image, nil, &size, 0, $0.baseAddress, 0, nil) }
        var bytes = [UInt8](repeating: 0, count: size)
        let written = bytes.withUnsafeMutableBufferPointer { target in
            rgb.withUnsafeBufferPointer {
                png_image_write_to_memory(&image, target.baseAddress, &size, 0, $0.baseAddress, 0, nil)
            }
        }
        precondition(written != 0, "png_image_write_to_memory failed")
        return Array(bytes.prefix(size))
    }

    /// `png` with its IHDR claiming `width × height` (and a correct CRC): a decompression bomb.
    static func pngClaiming(width: UInt32, height: UInt32) -> [UInt8] {
        var bytes = png(width: 4, height: 4)
        let size = [width, height].flatMap { value in (0..<4).reversed().map { UInt8((value >> ($0 * 8)) & 0xFF) } }
        bytes.replaceSubrange(16..<24, with: size)
        let crc = crc32(bytes[12..<29])
        bytes.replaceSubrange(29..<33, with: (0..<4).reversed().map { UInt8((crc >> ($0 * 8)) & 0xFF) })
        return bytes
    }

    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// A 24-bit bottom-up BMP of `width × height`.
    static func bmp(width: Int, height: Int) -> [UInt8] {
        func le(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).map { UInt8((value >> ($0 * 8)) & 0xFF) } }
        let row = (width * 24 + 31) / 32 * 4
        let pixels = row * height
        var bytes = Array("BM".utf8) + le(54 + pixels, 4) + le(0, 4) + le(54, 4)
        bytes += le(40, 4) + le(width, 4) + le(height, 4) + le(1, 2) + le(24, 2) + le(0, 4) + le(pixels, 4)
        bytes += le(2835, 4) + le(2835, 4) + le(0, 4) + le(0, 4)
        bytes += [UInt8](repeating: 0x7F, count: pixels)
        return bytes
    }
}
