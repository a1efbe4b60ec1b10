import CImageCodecs
import Foundation

/// The sample gallery the thumbnail budget is tested against: 20 deterministic 800 × 600
/// "photos" (JPEG quality 90, 4:2:0), each value noise in five octaves (shapes an eighth of the
/// width across down to single-pixel grain), so that a 128-pixel thumbnail holds as much detail as one of a
/// real photo does, rather than the flat colour of a test card or the averaged-out grey of
/// per-pixel noise.
enum SampleGallery {
    static let count = 20
    static let width = 800
    static let height = 600

    /// Photo `index` (0 ..< ``count``).
    static func photo(_ index: Int, width: Int = width, height: Int = height) -> [UInt8] {
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        let octaves: [(cell: Int, weight: Double)] = [(100, 0.45), (25, 0.25), (6, 0.15), (2, 0.1), (1, 0.05)]
        let grids = octaves.map { octave in
            ValueGrid(
                columns: width / octave.cell + 2, rows: height / octave.cell + 2,
                seed: UInt32(index * 7919 + octave.cell))
        }
        let tint = (Double(index % 5) / 5, Double(index % 3) / 3, Double(index % 7) / 7)
        for y in 0..<height {
            for x in 0..<width {
                var value = (0.0, 0.0, 0.0)
                for (octave, grid) in zip(octaves, grids) {
                    let sample = grid.sample(Double(x) / Double(octave.cell), Double(y) / Double(octave.cell))
                    value.0 += octave.weight * sample.0
                    value.1 += octave.weight * sample.1
                    value.2 += octave.weight * sample.2
                }
                let index = (y * width + x) * 3
                rgb[index] = UInt8(max(0, min(255, (value.0 * 0.7 + tint.0 * 0.3) * 255)))
                rgb[index + 1] = UInt8(max(0, min(255, (value.1 * 0.7 + tint.1 * 0.3) * 255)))
                rgb[index + 2] = UInt8(max(0, min(255, (value.2 * 0.7 + tint.2 * 0.3) * 255)))
            }
        }
        return jpeg(rgb: rgb, width: width, height: height)
    }

    /// `rgb` (3 bytes a pixel) as a baseline JPEG, quality 90, 4:2:0.
    static func jpeg(rgb: [UInt8], width: Int, height: Int) -> [UInt8] {
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

    /// Random colours on a grid, bilinearly interpolated between its points.
    struct ValueGrid {
        let columns: Int
        let rows: Int
        var values: [Double]

        init(columns: Int, rows: Int, seed: UInt32) {
            self.columns = columns
            self.rows = rows
            var state = seed | 1
            values = (0..<(columns * rows * 3)).map { _ in
                state ^= state << 13
                state ^= state >> 17
                state ^= state << 5
                return Double(state & 0xFFFF) / 65535
            }
        }

        func sample(_ x: Double, _ y: Double) -> (Double, Double, Double) {
            let (x0, y0) = (Int(x), Int(y))
            let (fx, fy) = (x - Double(x0), y - Double(y0))
            func channel(_ channel: Int) -> Double {
                func at(_ column: Int, _ row: Int) -> Double { values[(row * columns + column) * 3 + channel] }
                let top = at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx
                let bottom = at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx
                return top * (1 - fy) + bottom * fy
            }
            return (channel(0), channel(1), channel(2))
        }
    }
}
