import CImageCodecs
import Foundation
import Testing

/// What is accepted renders, as Pillow sees it: every layout of `Tests/image-fixtures` (BMPs of 1
/// to 32 bits, palette, grey, 16-bit and transparent PNGs, progressive, CMYK and EXIF-turned
/// JPEGs) goes up, is previewed, ordered and printed through gateway, auth, orders and printing as
/// real processes; the preview and page 1 of the print PDF must show the picture Pillow decodes
/// from the same file (`<name>.ref.png`), upright and in its colours.
@Suite("image formats render like Pillow decodes them (real processes)", .serialized)
struct ImageFidelityHTTPTests {
    let orders = OrdersHTTPTests()
    let jobs = PrintJobsHTTPTests()

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("image-fixtures")

    static let names = [
        "bmp-1bit.bmp", "bmp-4bit.bmp", "bmp-8bit-topdown.bmp", "bmp-16bit-555.bmp",
        "bmp-16bit-565-bitfields-topdown.bmp", "bmp-24bit.bmp", "bmp-32bit-topdown.bmp", "bmp-32bit-bitfields.bmp",
        "bmp-32bit-alpha-v5.bmp", "png-palette.png", "png-grey.png", "png-16bit.png", "png-alpha.png",
        "jpeg-progressive.jpg", "jpeg-cmyk.jpg", "jpeg-exif-6.jpg", "jpeg-exif-8.jpg", "jpeg-exif-3.jpg",
    ]

    /// An RGB raster: 3 bytes a pixel, rows from the top.
    struct Raster {
        let width: Int
        let height: Int
        let pixels: [UInt8]

        /// A PNG decoded with libpng (no gamma chunk in any PNG read here, so no conversion).
        init?(png bytes: [UInt8]) {
            var image = png_image()
            image.version = UInt32(PNG_IMAGE_VERSION)
            defer { png_image_free(&image) }
            guard
                bytes.withUnsafeBufferPointer({ png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) })
                    != 0
            else { return nil }
            image.format = UInt32(PNG_FORMAT_RGB)
            var pixels = [UInt8](repeating: 0, count: Int(image.width) * Int(image.height) * 3)
            let done = pixels.withUnsafeMutableBufferPointer {
                png_image_finish_read(&image, nil, $0.baseAddress, 0, nil)
            }
            guard done != 0 else { return nil }
            (width, height, self.pixels) = (Int(image.width), Int(image.height), pixels)
        }

        func pixel(_ x: Int, _ y: Int) -> (Int, Int, Int) {
            let at = (y * width + x) * 3
            return (Int(pixels[at]), Int(pixels[at + 1]), Int(pixels[at + 2]))
        }

        /// Whether the pixels within 2 of (x, y) all have the colour of (x, y) (give or take
        /// `slack`): a point inside a block, where any resampling leaves the colour as it is.
        func isFlat(_ x: Int, _ y: Int, slack: Int = 6) -> Bool {
            guard x >= 2, y >= 2, x < width - 2, y < height - 2 else { return false }
            let centre = pixel(x, y)
            for dy in -2...2 {
                for dx in -2...2 {
                    let other = pixel(x + dx, y + dy)
                    if max(abs(other.0 - centre.0), abs(other.1 - centre.1), abs(other.2 - centre.2)) > slack {
                        return false
                    }
                }
            }
            return true
        }
    }

    /// An A6 card's sheet in points: the trimmed card (148 × 105 mm) and 3 mm of bleed a side.
    static let millimetre = 72 / 25.4
    static let trim = (width: 148 * millimetre, height: 105 * millimetre)
    static let bleed = 3 * millimetre
    static let media = (width: trim.width + 2 * bleed, height: trim.height + 2 * bleed)

    /// How well `rendered` (covering the sheet from `origin`, in points, over `extent` points)
    /// shows `reference` cover-fitted over the whole sheet and centred, as the front is laid out:
    /// at every rendered pixel that falls inside a block of the picture, the largest channel
    /// difference; the share of those over `tolerance`, and how many were compared.
    static func compare(
        _ rendered: Raster, origin: (x: Double, y: Double), extent: (width: Double, height: Double),
        reference: Raster, tolerance: Int
    ) -> (compared: Int, overTolerance: Int, worst: String) {
        let (imageWidth, imageHeight) = (Double(reference.width), Double(reference.height))
        let scale = max(media.width / imageWidth, media.height / imageHeight)
        var compared = 0
        var over = 0
        var worst = (difference: -1, at: "")
        for y in 0..<rendered.height {
            for x in 0..<rendered.width {
                let sheetX = origin.x + (Double(x) + 0.5) * extent.width / Double(rendered.width)
                let sheetY = origin.y + (Double(y) + 0.5) * extent.height / Double(rendered.height)
                let u = (sheetX - media.width / 2) / scale + imageWidth / 2
                let v = (sheetY - media.height / 2) / scale + imageHeight / 2
                let (column, row) = (Int(u.rounded(.down)), Int(v.rounded(.down)))
                guard reference.isFlat(column, row) else { continue }
                let want = reference.pixel(column, row)
                let have = rendered.pixel(x, y)
                let difference = max(abs(have.0 - want.0), abs(have.1 - want.1), abs(have.2 - want.2))
                compared += 1
                if difference > tolerance { over += 1 }
                if difference > worst.difference {
                    worst = (difference, "pixel (\(x), \(y)) is \(have), Pillow's (\(column), \(row)) is \(want)")
                }
            }
        }
        return (compared, over, worst.at)
    }

    /// Page 1 of `pdf` rasterized by poppler at `dpi`.
    static func firstPage(_ pdf: [UInt8], dpi: Int) throws -> Raster? {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fidelity-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("card.pdf")
        try Data(pdf).write(to: file)
        let prefix = directory.appendingPathComponent("page").path
        guard
            try PrintJobsHTTPTests.run(
                "/usr/bin/pdftoppm", ["-f", "1", "-l", "1", "-r", "\(dpi)", "-png", "-singlefile", file.path, prefix])
                != nil
        else { return nil }
        return Raster(png: try [UInt8](Data(contentsOf: URL(fileURLWithPath: prefix + ".png"))))
    }

    @Test(
        "every accepted layout: upload 201 with its upright size; the preview and the print PDF's front show Pillow's pixels"
    )
    func formatsRenderAsPillowDecodes() async throws {
        let system = try await PrintingHTTPTests().start()
        defer { _ = system.stopBlocking() }
        let (ann, _) = try await orders.signUp(system, "ann")
        let token = try #require(ann.token)
        let saved = await ann.send(
            "POST", "/v1/payment-methods",
            json: #"{"number": "4242424242424242", "expMonth": 12, "expYear": 2030, "cvc": "123"}"#)
        let card = try #require(orders.json(saved.body)["id"] as? String, "\(saved.body)")
        let (_, printerName) = try await orders.signUp(system, "pat")
        try await PrintingHTTPTests.grant(["user", "printer"], to: printerName, in: system)
        let printer = try await orders.signIn(system, printerName)

        var placed: [(name: String, order: String, reference: Raster)] = []
        for name in Self.names {
            let bytes = try [UInt8](Data(contentsOf: Self.fixtures.appendingPathComponent(name)))
            let stem = URL(fileURLWithPath: name).deletingPathExtension().lastPathComponent
            let reference = try #require(
                Raster(png: try [UInt8](Data(contentsOf: Self.fixtures.appendingPathComponent("\(stem).ref.png")))))
            let type = name.hasSuffix(".bmp") ? "image/bmp" : name.hasSuffix(".png") ? "image/png" : "image/jpeg"
            let uploaded = await UploadsHTTPTests.call(
                system, token, "POST", "/v1/images", headers: ["Content-Type": type], body: bytes)
            let info = orders.json(String(decoding: uploaded.body, as: UTF8.self))
            #expect(uploaded.status == 201, "\(name): \(String(decoding: uploaded.body, as: UTF8.self))")
            guard let id = info["id"] as? String else { continue }
            #expect(
                info["width"] as? Int == reference.width && info["height"] as? Int == reference.height,
                "\(name): the size as displayed")

            let preview = await UploadsHTTPTests.call(
                system, token, "POST", "/v1/postcards/preview", headers: ["Content-Type": "application/json"],
                body: Array(#"{"imageId": "\#(id)", "size": "A6", "side": "front", "format": "png"}"#.utf8))
            #expect(preview.status == 200, "\(name): \(String(decoding: preview.body, as: UTF8.self))")
            let front = try #require(Raster(png: preview.body), "\(name): the preview is a PNG")
            let seen = Self.compare(
                front, origin: (Self.bleed, Self.bleed), extent: Self.trim, reference: reference, tolerance: 8)
            #expect(seen.compared > front.width * front.height / 2, "\(name): \(seen.compared) pixels compared")
            #expect(seen.overTolerance == 0, "\(name) preview: \(seen.overTolerance) pixels off; worst \(seen.worst)")

            let order = await ann.send(
                "POST", "/v1/orders",
                json: """
                    {"kind": "postcard", "currency": "EUR", "paymentMethodId": "\(card)",
                     "postcard": {"size": "A6", "imageId": "\(id)", "greeting": "Hej",
                       "recipients": [{"name": "Ann Lund", "address": {"line1": "Storgatan 1", "city": "Lund", "country": "SE"}}]}}
                    """, headers: ["Idempotency-Key": UUID().uuidString])
            #expect(order.status == 201, "\(name): \(order.body)")
            if let orderId = orders.json(order.body)["id"] as? String { placed.append((name, orderId, reference)) }
        }
        #expect(placed.count == Self.names.count)

        for (name, orderId, reference) in placed {
            let job = try #require(try await jobs.waitForReadyJob(printer, order: orderId), "\(name): no ready job")
            let pdf = await UploadsHTTPTests.call(system, printer.token, "GET", "/v1/print-jobs/\(job)/pdf")
            #expect(pdf.status == 200 && pdf.body.starts(with: Array("%PDF".utf8)), "\(name): the job's PDF")
            let page = try #require(try Self.firstPage(pdf.body, dpi: 50), "\(name): page 1 rasterizes")
            let printed = Self.compare(
                page, origin: (0, 0), extent: Self.media, reference: reference, tolerance: 20)
            #expect(printed.compared > page.width * page.height / 2, "\(name): \(printed.compared) pixels compared")
            #expect(
                printed.overTolerance == 0, "\(name) PDF: \(printed.overTolerance) pixels off; worst \(printed.worst)")
        }
    }

    @Test(
        "an image stored that no longer decodes: the order is 422 unprintable_image naming it and the field, nothing is charged"
    )
    func unprintableImageRefusedAtPlacement() async throws {
        let system = try await PrintingHTTPTests().start()
        defer { _ = system.stopBlocking() }
        let (ann, _) = try await orders.signUp(system, "ann")
        let token = try #require(ann.token)
        let saved = await ann.send(
            "POST", "/v1/payment-methods",
            json: #"{"number": "4242424242424242", "expMonth": 12, "expYear": 2030, "cvc": "123"}"#)
        let card = try #require(orders.json(saved.body)["id"] as? String, "\(saved.body)")
        let photo = UploadsHTTPTests.bmp(width: 40 + Int.random(in: 0..<200), height: 30)
        let uploaded = await UploadsHTTPTests.call(
            system, token, "POST", "/v1/images", headers: ["Content-Type": "image/bmp"], body: photo)
        let info = orders.json(String(decoding: uploaded.body, as: UTF8.self))
        let id = try #require(info["id"] as? String, "\(String(decoding: uploaded.body, as: UTF8.self))")
        let sha = try #require(info["sha256"] as? String)

        // The original on disk loses its pixels (what a broken disk or an older accepted layout
        // leaves): the upload's record stays, the renderer can no longer draw it.
        let original = system.logDirectory.appendingPathComponent("printing/originals/\(sha.prefix(2))/\(sha).bmp")
        try #require(FileManager.default.fileExists(atPath: original.path))
        try Data(photo.prefix(60)).write(to: original)

        let key = UUID().uuidString
        let refused = await ann.send(
            "POST", "/v1/orders",
            json: """
                {"kind": "postcard", "currency": "EUR", "paymentMethodId": "\(card)",
                 "postcard": {"size": "A6", "imageId": "\(id)", "greeting": "Hej",
                   "recipients": [{"name": "Ann Lund", "address": {"line1": "Storgatan 1", "city": "Lund", "country": "SE"}}]}}
                """, headers: ["Idempotency-Key": key])
        #expect(refused.status == 422, "\(refused.body)")
        let details = orders.json(refused.body)["details"] as? [String: Any]
        #expect(details?["reason"] as? String == "unprintable_image")
        #expect(details?["field"] as? String == "postcard.imageId")
        #expect(details?["imageId"] as? String == id)
        #expect((orders.json(refused.body)["message"] as? String)?.contains(id) == true, "\(refused.body)")
        let listed = await ann.send("GET", "/v1/orders")
        #expect(listed.status == 200 && (orders.json(listed.body)["items"] as? [Any])?.isEmpty == true, "\(listed.body)")
        #expect(await ann.send("GET", "/v1/images/\(id)").status == 200, "the upload itself is still there")
    }
}
