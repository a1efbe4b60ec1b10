import CommonContract
import Contract
import Foundation
import PrintingContract
import Testing

@testable import PrintingService

/// Print PDFs and previews, read back with poppler's `pdfinfo` and `pdftotext`.
@Suite("printing: postcard rendering (Cairo, Pango, poppler)")
struct RenderingTests {
    static let recipient = PostalRecipient(
        name: "Åsa Öberg", address: .init(line1: "Storgatan 1", city: "Lund", postalCode: "223 50", country: "SE"))

    /// Runs a poppler tool on `pdf` and returns what it prints.
    func poppler(_ tool: String, _ arguments: [String], pdf: [UInt8]) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("card-\(UUID()).pdf")
        try Data(pdf).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/\(tool)")
        process.arguments = arguments + [file.path] + (tool == "pdftotext" ? ["-"] : [])
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(tool) failed")
        return String(decoding: output, as: UTF8.self)
    }

    /// The four numbers of `box` for page `page` in `pdfinfo -box` output.
    func box(_ name: String, page: Int, in info: String) -> [Double] {
        let prefix = "Page" + String(repeating: " ", count: max(1, 5 - String(page).count)) + "\(page) \(name):"
        guard let line = info.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return [] }
        return line.dropFirst(prefix.count).split(separator: " ").compactMap { Double($0) }
    }

    @Test(
        "A6, A5, A4: two pages, MediaBox = card + 3 mm bleed each side, TrimBox = the card",
        arguments: CardSize.allCases)
    func boxes(size: CardSize) throws {
        let image = try PixelDecoder.decode(TestImages.jpeg(width: 300, height: 200), format: .jpeg)
        let pdf = PostcardRenderer.pdf(
            PostcardContent(size: size, image: image, greeting: "Hej", recipient: Self.recipient))
        let info = try poppler("pdfinfo", ["-box", "-f", "1", "-l", "2"], pdf: pdf)
        let pages = info.split(separator: "\n").first { $0.hasPrefix("Pages:") }
        #expect(pages?.split(separator: " ").last == "2", "\(info)")
        let mm = CardSize.pointsPerMillimetre
        let (width, height) = size.millimetres
        for page in [1, 2] {
            let media = box("MediaBox", page: page, in: info)
            let trim = box("TrimBox", page: page, in: info)
            #expect(media.count == 4 && trim.count == 4, "\(info)")
            guard media.count == 4, trim.count == 4 else { continue }
            #expect(abs(media[2] - media[0] - (width + 6) * mm) < 0.1)
            #expect(abs(media[3] - media[1] - (height + 6) * mm) < 0.1)
            #expect(abs(trim[0] - 3 * mm) < 0.1 && abs(trim[1] - 3 * mm) < 0.1)
            #expect(abs(trim[2] - trim[0] - width * mm) < 0.1)
            #expect(abs(trim[3] - trim[1] - height * mm) < 0.1)
        }
    }

    @Test("the back's greeting and address are text in the PDF, UTF-8 intact; a long greeting shrinks to fit")
    func text() throws {
        let pdf = PostcardRenderer.pdf(
            PostcardContent(size: .a6, greeting: "Hälsningar från Lund", recipient: Self.recipient))
        // Wrapped to the greeting box: compare with line breaks as spaces.
        let text = try poppler("pdftotext", ["-f", "2", "-l", "2"], pdf: pdf).replacingOccurrences(of: "\n", with: " ")
        #expect(text.contains("Hälsningar från Lund"), "\(text)")
        #expect(text.contains("Åsa Öberg") && text.contains("223 50 Lund"), "\(text)")
        let long = String(repeating: "Många hälsningar från en solig dag i Lund. ", count: 12)
        let crowded = try poppler(
            "pdftotext", ["-f", "2", "-l", "2"], pdf: PostcardRenderer.pdf(PostcardContent(size: .a6, greeting: long)))
        #expect(crowded.contains("solig dag"), "the long greeting is still there, smaller")
    }

    @Test("previews: PNG and JPEG of either side at the card's aspect; low resolution is flagged")
    func previews() throws {
        let image = try PixelDecoder.decode(TestImages.png(width: 120, height: 80), format: .png)
        let content = PostcardContent(size: .a6, image: image, greeting: "Hej", recipient: Self.recipient)
        let png = PostcardRenderer.preview(content, side: .back)
        let inspected = try ImageInspector.inspect(png, contentType: "image/png", limits: .standard)
        #expect(inspected.width == 583 && inspected.height == 413)
        let jpeg = PostcardRenderer.preview(content, side: .front, jpeg: true)
        #expect(try ImageInspector.inspect(jpeg, contentType: "image/jpeg", limits: .standard).width == 583)
        #expect(content.resolutionWarning?.contains("dpi") == true)
        let sharp = try PixelDecoder.decode(TestImages.jpeg(width: 2000, height: 1400), format: .jpeg)
        #expect(PostcardContent(size: .a6, image: sharp).resolutionWarning == nil)
    }
}
