import Foundation

/// Adds `/TrimBox` and `/BleedBox` to every page of a PDF written by Cairo (which sets only the
/// `/MediaBox`), and moves the cross-reference offsets by what was inserted.
///
/// Works on Cairo's classic `xref` table; any other layout is returned unchanged (the caller's
/// tests would then see no TrimBox).
enum PDFBoxes {
    /// `pdf` with `trim` (x0, y0, x1, y1 in points) set on every object that has a MediaBox.
    static func addTrimBox(to pdf: [UInt8], trim: (Double, Double, Double, Double)) -> [UInt8] {
        let key = Array("/MediaBox [".utf8)
        var insertions: [(at: Int, bytes: [UInt8])] = []
        var index = 0
        while let found = firstIndex(of: key, in: pdf, from: index) {
            guard let close = pdf[found...].firstIndex(of: UInt8(ascii: "]")) else { break }
            let media = String(decoding: pdf[found..<close], as: UTF8.self).dropFirst(key.count)
            let boxes =
                " /BleedBox [\(media)] /TrimBox [ \(format(trim.0)) \(format(trim.1)) \(format(trim.2)) \(format(trim.3)) ]"
            insertions.append((close + 1, Array(boxes.utf8)))
            index = close
        }
        guard !insertions.isEmpty, let xref = lastIndex(of: Array("\nxref\n".utf8), in: pdf) else { return pdf }
        func shifted(_ offset: Int) -> Int {
            offset + insertions.filter { $0.at <= offset }.reduce(0) { $0 + $1.bytes.count }
        }
        var output: [UInt8] = []
        output.reserveCapacity(pdf.count + insertions.reduce(0) { $0 + $1.bytes.count })
        var cursor = 0
        for insertion in insertions {
            output += pdf[cursor..<insertion.at]
            output += insertion.bytes
            cursor = insertion.at
        }
        output += pdf[cursor..<(xref + 1)]
        // The table: "xref\n0 N\n" then N entries of "oooooooooo ggggg n \n" (20 bytes), then trailer.
        var lines = String(decoding: pdf[(xref + 1)...], as: UTF8.self).components(separatedBy: "\n")
        var line = 2
        while line < lines.count, lines[line].count >= 18,
            lines[line].hasSuffix(" n ") || lines[line].hasSuffix(" n")
                || lines[line].hasSuffix(" f ") || lines[line].hasSuffix(" f")
        {
            let parts = lines[line].split(separator: " ")
            if parts.count >= 3, parts[2] == "n", let offset = Int(parts[0]) {
                let digits = String(shifted(offset))
                lines[line] = String(repeating: "0", count: max(0, 10 - digits.count)) + digits + " \(parts[1]) n "
            }
            line += 1
        }
        if let start = lines.firstIndex(of: "startxref"), start + 1 < lines.count {
            lines[start + 1] = "\(shifted(xref + 1))"
        }
        output += Array(lines.joined(separator: "\n").utf8)
        return output
    }

    private static func format(_ value: Double) -> String { String(format: "%.3f", value) }

    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        var index = start
        while index <= haystack.count - needle.count {
            if haystack[index] == needle[0], Array(haystack[index..<(index + needle.count)]) == needle { return index }
            index += 1
        }
        return nil
    }

    private static func lastIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        var index = haystack.count - needle.count
        while index >= 0 {
            if haystack[index] == needle[0], Array(haystack[index..<(index + needle.count)]) == needle { return index }
            index -= 1
        }
        return nil
    }
}
