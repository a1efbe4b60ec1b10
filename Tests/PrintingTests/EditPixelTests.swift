import Contract
import Foundation
import PrintingContract
import Testing

@testable import PrintingService

/// Each edit's effect on real pixels: applied to a decoded buffer, and through the same drawing of
/// the front that previews and print PDFs use (previews read back with libpng, PDFs with poppler).
@Suite("printing: edits applied to pixels, previews and print PDFs")
struct EditPixelTests {
    typealias RGB = (red: Int, green: Int, blue: Int)

    /// A `width` × `height` image of one colour, with `paint` applied per pixel.
    static func image(
        width: Int = 300, height: Int = 200, _ colour: (Int, Int) -> RGB = { _, _ in (180, 120, 60) }
    ) -> DecodedPixels {
        var bytes = [UInt8](repeating: 0xFF, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let (red, green, blue) = colour(x, y)
                let index = (y * width + x) * 4
                (bytes[index], bytes[index + 1], bytes[index + 2]) = (UInt8(blue), UInt8(green), UInt8(red))
            }
        }
        return DecodedPixels(width: width, height: height, bytes: bytes)
    }

    static func pixel(_ image: DecodedPixels, _ x: Int, _ y: Int) -> RGB {
        let index = (y * image.width + x) * 4
        return (Int(image.bytes[index + 2]), Int(image.bytes[index + 1]), Int(image.bytes[index]))
    }

    static func mean(_ image: DecodedPixels) -> Double {
        var sum = 0
        for index in stride(from: 0, to: image.bytes.count, by: 4) {
            sum += Int(image.bytes[index]) + Int(image.bytes[index + 1]) + Int(image.bytes[index + 2])
        }
        return Double(sum) / Double(image.width * image.height * 3)
    }

    /// The edited pixels of `edits` on `image`.
    static func edited(_ image: DecodedPixels, _ edits: [PostcardEdit], orientation: Int = 1) -> DecodedPixels {
        EditedFront(image, orientation: orientation, edits: edits).pixels
    }

    /// The A6 front preview (PNG) of `image` with `edits`, decoded back to pixels.
    static func preview(_ image: DecodedPixels, _ edits: [PostcardEdit], orientation: Int = 1) throws -> DecodedPixels {
        let content = PostcardContent(size: .a6, image: image, orientation: orientation, edits: edits)
        return try PixelDecoder.decode(PostcardRenderer.preview(content, side: .front), format: .png)
    }

    /// A noisy image, so that filters have every kind of pixel to work on.
    static let noisy = image { x, y in ((x * 7 + y * 3) % 256, (x * 13 + y * 5) % 256, (x * 3 + y * 11) % 256) }

    @Test("grayscale makes r = g = b; brightness raises the mean; contrast -1 is flat grey")
    func tones() {
        let gray = Self.edited(Self.noisy, [.filter(.grayscale)])
        for (x, y) in [(0, 0), (17, 33), (150, 100), (299, 199)] {
            let (red, green, blue) = Self.pixel(gray, x, y)
            #expect(red == green && green == blue)
        }
        let brighter = Self.edited(Self.noisy, [.brightness(amount: 0.2)])
        #expect(Self.mean(brighter) > Self.mean(Self.noisy) + 20)
        #expect(Self.mean(Self.edited(Self.noisy, [.brightness(amount: -0.2)])) < Self.mean(Self.noisy) - 20)
        let flat = Self.edited(Self.noisy, [.contrast(amount: -1)])
        #expect(Self.pixel(flat, 5, 5) == (128, 128, 128) && Self.pixel(flat, 250, 150) == (128, 128, 128))
        let strong = Self.pixel(Self.edited(Self.image(), [.contrast(amount: 0.5)]), 0, 0)
        #expect(strong.red > 180 && strong.blue < 60, "more contrast pushes channels away from mid-grey")
    }

    @Test(
        "sepia: red ≥ green ≥ blue; vintage lifts blacks and fades whites, warm; invert: 255 − v; warm and cool shift red against blue"
    )
    func filters() {
        let sepia = Self.edited(Self.noisy, [.filter(.sepia)])
        for (x, y) in [(0, 0), (40, 10), (150, 100), (299, 199)] {
            let (red, green, blue) = Self.pixel(sepia, x, y)
            #expect(red >= green && green >= blue, "sepia at \(x),\(y): \(red) \(green) \(blue)")
        }
        let vintageBlack = Self.pixel(Self.edited(Self.image { _, _ in (0, 0, 0) }, [.filter(.vintage)]), 3, 3)
        #expect(vintageBlack.blue > 15 && vintageBlack.red >= vintageBlack.blue, "vintage lifts the blacks, warm")
        let vintageWhite = Self.pixel(Self.edited(Self.image { _, _ in (255, 255, 255) }, [.filter(.vintage)]), 3, 3)
        #expect(vintageWhite.blue < 240 && vintageWhite.red > vintageWhite.blue, "and fades the whites, warm")
        #expect(Self.pixel(Self.edited(Self.image(), [.filter(.invert)]), 10, 10) == (75, 135, 195))
        let warm = Self.pixel(Self.edited(Self.image(), [.filter(.warm)]), 10, 10)
        #expect(warm.red > 180 && warm.blue < 60)
        let cool = Self.pixel(Self.edited(Self.image(), [.filter(.cool)]), 10, 10)
        #expect(cool.red < 180 && cool.blue > 60)
    }

    @Test("redeye lowers red inside its circle only, and leaves a pixel where red does not dominate")
    func redeye() {
        // Red dots at (60, 50) and (240, 150) on a grey background.
        let image = Self.image { x, y in
            let nearA = (x - 60) * (x - 60) + (y - 50) * (y - 50) < 100
            let nearB = (x - 240) * (x - 240) + (y - 150) * (y - 150) < 100
            return nearA || nearB ? (220, 40, 40) : (120, 110, 100)
        }
        let fixed = Self.edited(image, [.redeye(regions: [EditCircle(x: 0.2, y: 0.25, radius: 0.1)])])
        #expect(Self.pixel(fixed, 60, 50).red < 60, "the red pupil inside the circle turns dark")
        #expect(Self.pixel(fixed, 240, 150) == (220, 40, 40), "the red dot outside the circle stays")
        #expect(Self.pixel(fixed, 62, 62) == (120, 110, 100), "grey inside the circle stays")
    }

    @Test("redeye with detect: small round red spots lose their red, a large red area keeps it")
    func redeyeDetection() {
        // Two pupils of radius 6 and a red block 100 × 160 on grey.
        let image = Self.image { x, y in
            let pupil = [(40, 50), (260, 150)].contains { (x - $0.0) * (x - $0.0) + (y - $0.1) * (y - $0.1) < 36 }
            let block = (100..<200).contains(x) && (20..<180).contains(y)
            return pupil || block ? (220, 40, 40) : (120, 110, 100)
        }
        let fixed = Self.edited(image, [.redeye(regions: [], detect: true)])
        #expect(Self.pixel(fixed, 40, 50).red < 60 && Self.pixel(fixed, 260, 150).red < 60, "pupils fixed")
        #expect(Self.pixel(fixed, 150, 100) == (220, 40, 40), "the red block stays red")
        #expect(Self.pixel(fixed, 20, 20) == (120, 110, 100))
    }

    @Test("crop: the preview shows only the kept part, and the effective DPI drops with it")
    func crop() throws {
        let halves = Self.image { x, _ in x < 150 ? (230, 20, 20) : (20, 20, 230) }
        let left = [PostcardEdit.crop(EditRect(x: 0, y: 0, width: 0.5, height: 1))]
        let shown = try Self.preview(halves, left)
        for (x, y) in [(5, 5), (290, 200), (570, 400)] {
            let (red, _, blue) = Self.pixel(shown, x, y)
            #expect(red > 200 && blue < 60, "only the red half is left at \(x),\(y)")
        }
        let whole = PostcardContent(size: .a6, image: halves)
        var cropped = whole
        cropped.edits = left
        let full = try #require(whole.effectiveDPI)
        let half = try #require(cropped.effectiveDPI)
        #expect(half < full * 3 / 4, "\(half) dpi cropped, \(full) dpi whole")
        #expect(cropped.resolutionWarning != nil)
    }

    @Test("crop coordinates are of the image as displayed: orientation 6 puts the raw left half on top")
    func cropAfterOrientation() throws {
        let halves = Self.image { x, _ in x < 150 ? (230, 20, 20) : (20, 20, 230) }
        let top = [PostcardEdit.crop(EditRect(x: 0, y: 0, width: 1, height: 0.5))]
        let shown = try Self.preview(halves, top, orientation: 6)
        for (x, y) in [(5, 5), (290, 200), (570, 400)] {
            let (red, _, blue) = Self.pixel(shown, x, y)
            #expect(red > 200 && blue < 60, "the top half is the raw left half at \(x),\(y)")
        }
    }

    @Test("pen colours the pixels on its stroke and nowhere else")
    func pen() throws {
        let white = Self.image { _, _ in (255, 255, 255) }
        let stroke = PenStroke(
            points: [EditPoint(x: 0, y: 0.5), EditPoint(x: 1, y: 0.5)], color: EditColor(hex: "#00c000")!,
            width: 0.04)
        let shown = try Self.preview(white, [.pen(strokes: [stroke])])
        let (red, green, blue) = Self.pixel(shown, shown.width / 2, shown.height / 2)
        #expect(green > 150 && red < 40 && blue < 40, "on the stroke: \(red) \(green) \(blue)")
        #expect(Self.pixel(shown, shown.width / 2, shown.height / 5) == (255, 255, 255), "off the stroke")
    }

    @Test("a pen stroke before a filter is filtered with the image; a stroke after it keeps its colour")
    func order() throws {
        let white = Self.image { _, _ in (255, 255, 255) }
        let stroke = PenStroke(
            points: [EditPoint(x: 0, y: 0.5), EditPoint(x: 1, y: 0.5)], color: EditColor(hex: "#ff0000")!,
            width: 0.05)
        let before = try Self.preview(white, [.pen(strokes: [stroke]), .filter(.grayscale)])
        let (red, green, blue) = Self.pixel(before, before.width / 2, before.height / 2)
        #expect(red == green && green == blue && red < 128, "\(red) \(green) \(blue)")
        let after = try Self.preview(white, [.filter(.grayscale), .pen(strokes: [stroke])])
        let colour = Self.pixel(after, after.width / 2, after.height / 2)
        #expect(colour.red > 200 && colour.green < 60)
    }

    @Test("a preview with edits differs from one without")
    func previewDiffers() {
        let image = Self.noisy
        let plain = PostcardRenderer.preview(PostcardContent(size: .a6, image: image), side: .front)
        let edited = PostcardRenderer.preview(
            PostcardContent(size: .a6, image: image, edits: [.filter(.sepia)]), side: .front)
        #expect(plain != edited)
        #expect(plain == PostcardRenderer.preview(PostcardContent(size: .a6, image: image), side: .front))
    }

    @Test(
        "print PDF: the front is an embedded JPEG, a text edit is extractable text on it, a filtered front is grey when rasterised"
    )
    func printedEdits() throws {
        let image = Self.noisy
        let content = PostcardContent(
            size: .a6, image: image, greeting: "Hej",
            edits: [
                .crop(EditRect(x: 0.1, y: 0.1, width: 0.8, height: 0.8)), .filter(.grayscale),
                .text(TextOverlay(text: "Sjön i Lund", x: 0.1, y: 0.4, size: 0.1, color: EditColor(hex: "#ffffff")!)),
            ])
        let pdf = PostcardRenderer.pdf(content)
        let text = try RenderingTests().poppler("pdftotext", ["-f", "1", "-l", "1"], pdf: pdf)
        #expect(text.contains("Sjön i Lund"), "\(text)")
        let images = try RenderingTests().poppler("pdfimages", ["-list", "-f", "1", "-l", "1"], pdf: pdf)
        #expect(images.contains(" jpeg "), "the front is embedded as a JPEG (DCTDecode): \(images)")
        let page = try Self.rasterise(pdf)
        var coloured = 0
        for y in stride(from: 20, to: page.height - 20, by: 13) {
            for x in stride(from: 20, to: page.width - 20, by: 17) {
                let (red, green, blue) = Self.pixel(page, x, y)
                if max(red, green, blue) - min(red, green, blue) > 24 { coloured += 1 }
            }
        }
        #expect(coloured == 0, "the grayscale front has \(coloured) coloured samples")
    }

    /// Page 1 of `pdf` at 50 dpi through poppler's `pdftoppm`, decoded.
    static func rasterise(_ pdf: [UInt8]) throws -> DecodedPixels {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("raster-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(pdf).write(to: directory.appendingPathComponent("card.pdf"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/pdftoppm")
        process.arguments = [
            "-png", "-r", "50", "-f", "1", "-l", "1", "-singlefile", directory.appendingPathComponent("card.pdf").path,
            directory.appendingPathComponent("page").path,
        ]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let png = try [UInt8](Data(contentsOf: directory.appendingPathComponent("page.png")))
        return try PixelDecoder.decode(png, format: .png)
    }
}
