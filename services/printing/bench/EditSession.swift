import Contract
import Foundation
import PrintingContract
import PrintingService

/// 50 consecutive edits on the 8-megapixel photo, measured for peak resident memory in a fresh
/// child process (Linux `VmHWM`, the high-water mark of the resident set).
enum EditSession {
    /// Runs this executable again with `--rss-child` and returns what it printed.
    static func runChild(directory: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).absoluteURL
        process.arguments = ["--rss-child", "session", "--dir", directory.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The n-th of 50 edits: brightness, contrast, warm/cool, a pen stroke of 20 points, red-eye,
    /// text and a 2 % crop, in turn.
    static func edit(_ index: Int) -> PostcardEdit {
        let step = Double(index) / 50
        switch index % 7 {
        case 0: return .brightness(amount: 0.02)
        case 1: return .contrast(amount: 0.03)
        case 2: return .filter(index % 2 == 0 ? .warm : .cool)
        case 3:
            let points = (0..<20).map { EditPoint(x: Double($0) / 20, y: 0.2 + 0.6 * step) }
            return .pen(strokes: [
                PenStroke(points: points, color: EditColor(red: 200, green: 30, blue: 90), width: 0.01)
            ])
        case 4: return .redeye(regions: [EditCircle(x: 0.3 + 0.4 * step, y: 0.5, radius: 0.03)])
        case 5:
            return .text(
                TextOverlay(
                    text: "edit \(index)", x: 0.1, y: step, size: 0.05,
                    color: EditColor(red: 255, green: 255, blue: 255)))
        default: return .crop(EditRect(x: 0.01, y: 0.01, width: 0.98, height: 0.98))
        }
    }

    /// After each edit the app shows a preview with the list so far (A6, 100 dpi, PNG); after every
    /// tenth, an A4 print PDF, whose 300 dpi need the photo decoded at full size (8 megapixels).
    static func peakResident(photo: URL, mode: String) throws -> String {
        let before = highWater()
        var edits: [PostcardEdit] = []
        var fullSize = 0
        for index in 0..<50 {
            edits.append(edit(index))
            let bytes = try [UInt8](Data(contentsOf: photo))
            for (size, dpi, isPreview) in [(CardSize.a6, 100.0, true), (.a4, 300, false)]
            where isPreview || (index + 1) % 10 == 0 {
                let scale = PostcardContent.decodeScale(
                    width: BenchPhoto.width, height: BenchPhoto.height, size: size, edits: edits, dpi: dpi)
                let pixels = try PixelDecoder.decode(bytes, format: .jpeg, minimumScale: scale)
                if pixels.width == BenchPhoto.width { fullSize += 1 }
                let content = PostcardContent(size: size, image: pixels, greeting: "Hej", edits: edits)
                _ = isPreview ? PostcardRenderer.preview(content, side: .front) : PostcardRenderer.pdf(content)
            }
        }
        return
            "| peak RSS (VmHWM), 50 consecutive edits: 50 previews + 5 A4 PDFs (\(fullSize) decoded at 3264x2448) | "
            + "\(highWater() / 1024) MB | (\(before / 1024) MB before the first edit) | < 300 MB |"
    }

    /// `VmHWM` of this process in kB.
    static func highWater() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}
