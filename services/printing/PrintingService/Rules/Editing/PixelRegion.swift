/// A rectangle of a BGRX pixel buffer (Cairo's `RGB24`: blue, green, red, unused), edited in place.
/// `x0..<x1`, `y0..<y1` are pixel bounds inside a buffer of `stride` bytes per row.
struct PixelRegion {
    let base: UnsafeMutablePointer<UInt8>
    let stride: Int
    let x0: Int
    let y0: Int
    let x1: Int
    let y1: Int

    /// Every channel through `table` (256 entries).
    func map(_ table: [UInt8]) {
        table.withUnsafeBufferPointer { lookup in
            for y in y0..<y1 {
                var pixel = base + y * stride + x0 * 4
                for _ in x0..<x1 {
                    pixel[0] = lookup[Int(pixel[0])]
                    pixel[1] = lookup[Int(pixel[1])]
                    pixel[2] = lookup[Int(pixel[2])]
                    pixel += 4
                }
            }
        }
    }

    /// Every pixel through `matrix`.
    func transform(_ matrix: ColorMatrix) {
        let m = matrix.fixed
        for y in y0..<y1 {
            var pixel = base + y * stride + x0 * 4
            for _ in x0..<x1 {
                let blue = Int32(pixel[0])
                let green = Int32(pixel[1])
                let red = Int32(pixel[2])
                pixel[2] = Self.clamp(m.0 &* red &+ m.1 &* green &+ m.2 &* blue &+ m.3)
                pixel[1] = Self.clamp(m.4 &* red &+ m.5 &* green &+ m.6 &* blue &+ m.7)
                pixel[0] = Self.clamp(m.8 &* red &+ m.9 &* green &+ m.10 &* blue &+ m.11)
                pixel += 4
            }
        }
    }

    @inline(__always)
    private static func clamp(_ fixed: Int32) -> UInt8 {
        UInt8(truncatingIfNeeded: min(255, max(0, (fixed &+ 512) >> 10)))
    }

    /// Inside the circle at (`centerX`, `centerY`) with `radius` (pixels), where red dominates
    /// (above 60 and more than 1.4 times both green and blue), red becomes the mean of green and
    /// blue: a red pupil turns dark, skin and everything outside the circle stay as they were.
    func reduceRed(centerX: Double, centerY: Double, radius: Double) {
        let top = max(y0, Int((centerY - radius).rounded(.down)))
        let bottom = min(y1, Int((centerY + radius).rounded(.up)) + 1)
        let left = max(x0, Int((centerX - radius).rounded(.down)))
        let right = min(x1, Int((centerX + radius).rounded(.up)) + 1)
        guard top < bottom, left < right else { return }
        for y in top..<bottom {
            let dy = Double(y) + 0.5 - centerY
            for x in left..<right {
                let dx = Double(x) + 0.5 - centerX
                guard dx * dx + dy * dy <= radius * radius else { continue }
                let pixel = base + y * stride + x * 4
                let (blue, green, red) = (Int(pixel[0]), Int(pixel[1]), Int(pixel[2]))
                if red > 60, red * 10 > 14 * max(green, blue) {
                    pixel[2] = UInt8((green + blue) / 2)
                }
            }
        }
    }
}

extension PixelRegion {
    /// Small, compact spots of strongly red pixels (red above 150 and more than 1.8 times green and
    /// blue), found on a grid of `cell` × `cell` pixel cells (each judged by its centre pixel) and
    /// grouped by 4-neighbourhood: a spot at most `maximumCells` cells across either way, not more
    /// than twice as long as wide and at least half filled is a red eye. Large red areas (a
    /// jumper, a bus) are left alone. Centres and radii are in pixels.
    func redSpots(cell: Int, maximumCells: Int) -> [(x: Double, y: Double, radius: Double)] {
        let columns = (x1 - x0 + cell - 1) / cell
        let rows = (y1 - y0 + cell - 1) / cell
        guard columns > 0, rows > 0 else { return [] }
        var red = [Bool](repeating: false, count: columns * rows)
        for row in 0..<rows {
            for column in 0..<columns {
                let x = min(x1 - 1, x0 + column * cell + cell / 2)
                let y = min(y1 - 1, y0 + row * cell + cell / 2)
                let pixel = base + y * stride + x * 4
                let (blue, green, value) = (Int(pixel[0]), Int(pixel[1]), Int(pixel[2]))
                red[row * columns + column] = value > 150 && value * 10 > 18 * max(green, blue)
            }
        }
        var spots: [(x: Double, y: Double, radius: Double)] = []
        var pending: [Int] = []
        for start in red.indices where red[start] {
            red[start] = false
            pending.append(start)
            var (count, left, right, top, bottom) = (0, columns, -1, rows, -1)
            while let index = pending.popLast() {
                let (row, column) = (index / columns, index % columns)
                count += 1
                (left, right, top, bottom) = (min(left, column), max(right, column), min(top, row), max(bottom, row))
                for (dr, dc) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
                    let (r, c) = (row + dr, column + dc)
                    guard r >= 0, r < rows, c >= 0, c < columns, red[r * columns + c] else { continue }
                    red[r * columns + c] = false
                    pending.append(r * columns + c)
                }
            }
            let (width, height) = (right - left + 1, bottom - top + 1)
            guard width <= maximumCells, height <= maximumCells, max(width, height) <= 2 * min(width, height),
                count * 2 >= width * height
            else { continue }
            spots.append(
                (
                    x: Double(x0) + Double((left + right + 1) * cell) / 2,
                    y: Double(y0) + Double((top + bottom + 1) * cell) / 2,
                    radius: Double(max(width, height) * cell) * 0.75 + Double(cell)
                ))
        }
        return spots
    }
}
