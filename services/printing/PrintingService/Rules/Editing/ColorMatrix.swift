import Contract
import PrintingContract

/// A colour transform `out = M × (r, g, b) + offset`, per channel, in 8-bit values.
struct ColorMatrix {
    /// Rows for red, green and blue: three factors and an offset each.
    let rows: [[Double]]

    /// The rows in 22.10 fixed point, as ``PixelRegion/transform(_:)`` reads them.
    var fixed: (Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32) {
        let v = rows.flatMap { $0 }.map { Int32(($0 * 1024).rounded()) }
        return (v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11])
    }

    /// `a` weighted by `share`, identity by the rest, then every channel scaled by `scale` around 0
    /// and lifted by `lift`.
    static func blend(_ a: ColorMatrix, share: Double, scale: Double = 1, lift: Double = 0) -> ColorMatrix {
        ColorMatrix(
            rows: (0..<3).map { row in
                (0..<4).map { column in
                    let identity: Double = column == row ? 1 : 0
                    let mixed = a.rows[row][column] * share + identity * (1 - share)
                    return mixed * scale + (column == 3 ? lift : 0)
                }
            })
    }

    /// The matrix of a named filter.
    static func filter(_ filter: PostcardFilter) -> ColorMatrix {
        switch filter {
        case .grayscale:
            let luma = [0.299, 0.587, 0.114, 0]
            return ColorMatrix(rows: [luma, luma, luma])
        case .sepia:
            return ColorMatrix(rows: [
                [0.393, 0.769, 0.189, 0], [0.349, 0.686, 0.168, 0], [0.272, 0.534, 0.131, 0],
            ])
        case .invert:
            return ColorMatrix(rows: [[-1, 0, 0, 255], [0, -1, 0, 255], [0, 0, -1, 255]])
        case .warm:
            return ColorMatrix(rows: [[1.08, 0, 0, 12], [0, 1.02, 0, 4], [0, 0, 0.85, 0]])
        case .cool:
            return ColorMatrix(rows: [[0.85, 0, 0, 0], [0, 1.02, 0, 4], [0, 0, 1.08, 12]])
        case .vintage:
            return blend(Self.filter(.sepia), share: 0.6, scale: 0.85, lift: 28)
        }
    }

    /// The lookup table of a brightness or contrast edit.
    static func table(_ edit: PostcardEdit) -> [UInt8]? {
        let curve: (Double) -> Double
        switch edit {
        case .brightness(let amount): curve = { $0 + amount * 255 }
        case .contrast(let amount):
            let factor = amount < 0 ? 1 + amount : 1 + 3 * amount
            curve = { ($0 - 127.5) * factor + 127.5 }
        default: return nil
        }
        return (0..<256).map { UInt8(min(255, max(0, curve(Double($0)).rounded()))) }
    }
}
