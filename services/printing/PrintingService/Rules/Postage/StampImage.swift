/// The postage stamp image embedded in a postage file: PNG or JPEG bytes whose header agrees
/// with the declared media type, with their pixel size read from that header.
public struct StampImage: Sendable, Hashable {
    /// `image/png` or `image/jpeg`.
    public let mediaType: String
    public let bytes: [UInt8]
    public let width: Int
    public let height: Int

    /// Largest side accepted, in pixels; a stamp is small.
    public static let maxSide = 4000

    /// Reads the size of `bytes`; a message when they are not a `mediaType` image.
    public static func read(_ bytes: [UInt8], mediaType: String) -> Result<StampImage, StampError> {
        let size: (Int, Int)?
        switch mediaType {
        case "image/png": size = pngSize(bytes)
        case "image/jpeg": size = jpegSize(bytes)
        default: return .failure(StampError("media type \(mediaType) is not image/png or image/jpeg"))
        }
        guard let (width, height) = size else {
            return .failure(StampError("the stamp is not a readable \(mediaType) image (bad header)"))
        }
        guard (1...maxSide).contains(width), (1...maxSide).contains(height) else {
            return .failure(StampError("the stamp is \(width)×\(height) pixels; each side must be 1 to \(maxSide)"))
        }
        return .success(StampImage(mediaType: mediaType, bytes: bytes, width: width, height: height))
    }

    /// Why a stamp was refused.
    public struct StampError: Error, Sendable, Hashable {
        public let message: String
        init(_ message: String) { self.message = message }
    }

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Width and height from the IHDR chunk that must follow the signature.
    static func pngSize(_ bytes: [UInt8]) -> (Int, Int)? {
        guard bytes.count >= 24, Array(bytes[0..<8]) == pngSignature, Array(bytes[12..<16]) == Array("IHDR".utf8)
        else { return nil }
        return (bigEndian(bytes, at: 16, count: 4), bigEndian(bytes, at: 20, count: 4))
    }

    /// Width and height from the first start-of-frame marker, walking the segments.
    static func jpegSize(_ bytes: [UInt8]) -> (Int, Int)? {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var index = 2
        while index + 9 < bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            if marker == 0xFF {
                index += 1
                continue
            }
            let length = bigEndian(bytes, at: index + 2, count: 2)
            let isFrame = (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker)
            if isFrame {
                return (bigEndian(bytes, at: index + 7, count: 2), bigEndian(bytes, at: index + 5, count: 2))
            }
            guard length >= 2 else { return nil }
            index += 2 + length
        }
        return nil
    }

    private static func bigEndian(_ bytes: [UInt8], at offset: Int, count: Int) -> Int {
        bytes[offset..<(offset + count)].reduce(0) { $0 << 8 | Int($1) }
    }
}
