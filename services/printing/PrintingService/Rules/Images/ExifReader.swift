/// What an image's EXIF block says that matters here: its orientation (1-8) and GPS position.
/// Reads the TIFF structure of a JPEG's APP1 `Exif` segment with every offset bounds-checked;
/// anything malformed is ignored (EXIF is optional metadata, never a reason to refuse a photo).
public struct ExifInfo: Sendable, Hashable {
    /// EXIF orientation: 1 upright, 3 upside down, 6 and 8 quarter turns, 2/4/5/7 mirrored.
    public var orientation: Int = 1
    public var latitude: Double?
    public var longitude: Double?

    /// Whether displaying the image swaps its width and height (orientations 5 to 8).
    public var swapsAxes: Bool { (5...8).contains(orientation) }

    /// The EXIF of a JPEG, or the defaults when it has none.
    public static func read(jpeg bytes: [UInt8]) -> ExifInfo {
        guard let tiff = app1Exif(bytes) else { return ExifInfo() }
        return TIFFReader(bytes: tiff)?.exif() ?? ExifInfo()
    }

    /// The TIFF bytes inside the first APP1 segment that starts `Exif\0\0`.
    static func app1Exif(_ bytes: [UInt8]) -> ArraySlice<UInt8>? {
        var index = 2
        while index + 4 <= bytes.count, bytes[index] == 0xFF {
            let marker = bytes[index + 1]
            if marker == 0xDA || marker == 0xD9 { return nil }
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            guard length >= 2, index + 2 + length <= bytes.count else { return nil }
            let body = bytes[(index + 4)..<(index + 2 + length)]
            if marker == 0xE1, body.starts(with: Array("Exif".utf8) + [0, 0]) {
                return body.dropFirst(6)
            }
            index += 2 + length
        }
        return nil
    }
}

/// A bounds-checked reader of a TIFF block (EXIF's container), either byte order.
struct TIFFReader {
    let bytes: [UInt8]
    let littleEndian: Bool

    init?(bytes slice: ArraySlice<UInt8>) {
        bytes = Array(slice)
        guard bytes.count >= 8 else { return nil }
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
    }

    func exif() -> ExifInfo {
        var info = ExifInfo()
        guard let ifd0 = uint32(at: 4) else { return info }
        let entries = self.entries(at: Int(ifd0))
        if let orientation = entries[0x0112].flatMap({ uint16(at: $0.valueOffset) }), (1...8).contains(orientation) {
            info.orientation = Int(orientation)
        }
        guard let gpsOffset = entries[0x8825].flatMap({ uint32(at: $0.valueOffset) }) else { return info }
        let gps = self.entries(at: Int(gpsOffset))
        if let latitude = degrees(gps[0x0002], reference: gps[0x0001], negative: "S"),
            let longitude = degrees(gps[0x0004], reference: gps[0x0003], negative: "W"),
            (-90...90).contains(latitude), (-180...180).contains(longitude)
        {
            info.latitude = latitude
            info.longitude = longitude
        }
        return info
    }

    struct Entry {
        let type: Int
        let count: Int
        /// Where the value is: inline in the entry, or at the offset it holds.
        let valueOffset: Int
    }

    /// The entries of the IFD at `offset`, by tag.
    func entries(at offset: Int) -> [Int: Entry] {
        guard let count = uint16(at: offset), count < 1000 else { return [:] }
        var result: [Int: Entry] = [:]
        for index in 0..<Int(count) {
            let at = offset + 2 + index * 12
            guard let tag = uint16(at: at), let type = uint16(at: at + 2), let items = uint32(at: at + 4) else { break }
            let size = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 7: 1, 9: 4, 10: 8][Int(type)] ?? 1
            let total = size * Int(items)
            let valueOffset = total <= 4 ? at + 8 : Int(uint32(at: at + 8) ?? UInt32.max)
            result[Int(tag)] = Entry(type: Int(type), count: Int(items), valueOffset: valueOffset)
        }
        return result
    }

    /// Degrees from three RATIONALs (degrees, minutes, seconds) and an `N`/`S` or `E`/`W` tag.
    func degrees(_ value: Entry?, reference: Entry?, negative: String) -> Double? {
        guard let value, value.type == 5, value.count == 3 else { return nil }
        var parts: [Double] = []
        for index in 0..<3 {
            guard let numerator = uint32(at: value.valueOffset + index * 8),
                let denominator = uint32(at: value.valueOffset + index * 8 + 4), denominator != 0
            else { return nil }
            parts.append(Double(numerator) / Double(denominator))
        }
        let magnitude = parts[0] + parts[1] / 60 + parts[2] / 3600
        let isNegative = reference.flatMap { byte(at: $0.valueOffset) } == Array(negative.utf8).first
        return isNegative ? -magnitude : magnitude
    }

    func byte(at offset: Int) -> UInt8? {
        offset >= 0 && offset < bytes.count ? bytes[offset] : nil
    }

    func uint16(at offset: Int) -> UInt16? {
        guard offset >= 0, offset + 2 <= bytes.count else { return nil }
        let (a, b) = (UInt16(bytes[offset]), UInt16(bytes[offset + 1]))
        return littleEndian ? b << 8 | a : a << 8 | b
    }

    func uint32(at offset: Int) -> UInt32? {
        guard let first = uint16(at: offset), let second = uint16(at: offset + 2) else { return nil }
        return littleEndian ? UInt32(second) << 16 | UInt32(first) : UInt32(first) << 16 | UInt32(second)
    }
}
