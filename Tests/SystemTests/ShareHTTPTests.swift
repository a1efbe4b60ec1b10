import Foundation
import Testing

/// PostcardBuddy's free e-cards, e-cards sent from the phone, and share pages, with real
/// processes (broker, auth, orders, printing, notify, gateway), a real SMTP server, Python's
/// `html.parser` reading the page, and headless Chromium (Debian's `chromium`) taking its
/// screenshot.
@Suite("share pages and e-cards from the phone over HTTP (real processes)", .serialized)
struct ShareHTTPTests {
    let orders = OrdersHTTPTests()

    /// The page's `<meta>` tags, `<title>`, `<img>` sources and visible text, read by Python's
    /// `html.parser` (a real HTML5 tokenizer, as link-preview crawlers use).
    struct ParsedPage: Decodable {
        let meta: [String: String]
        let title: String
        let images: [String]
        let text: String
    }

    static func parse(_ html: String) throws -> ParsedPage {
        let script = """
            import json, sys
            from html.parser import HTMLParser
            class Page(HTMLParser):
                def __init__(self):
                    super().__init__()
                    self.meta, self.title, self.images, self.text, self.in_title = {}, "", [], "", False
                def handle_starttag(self, tag, attrs):
                    a = dict(attrs)
                    if tag == "meta" and "content" in a and ("property" in a or "name" in a):
                        self.meta[a.get("property") or a.get("name")] = a["content"]
                    elif tag == "title":
                        self.in_title = True
                    elif tag == "img":
                        self.images.append(a.get("src", ""))
                def handle_endtag(self, tag):
                    if tag == "title":
                        self.in_title = False
                def handle_data(self, data):
                    if self.in_title:
                        self.title += data
                    self.text += data
            page = Page()
            page.feed(sys.stdin.read())
            page.close()
            print(json.dumps({"meta": page.meta, "title": page.title, "images": page.images, "text": page.text}))
            """
        return try JSONDecoder().decode(ParsedPage.self, from: try python(script, input: html))
    }

    /// Whether a PNG file is a real picture: decoded (zlib, scanline filters) by a few lines of
    /// Python; answers `width height distinct-colours share-of-the-commonest-colour`.
    static func pngFigures(_ path: String) throws -> [Double] {
        let script = """
            import struct, sys, zlib
            data = open(sys.argv[1], "rb").read()
            assert data[:8] == b"\\x89PNG\\r\\n\\x1a\\n", "not a PNG"
            pos, idat, head = 8, b"", None
            while pos < len(data):
                n, kind = struct.unpack(">I4s", data[pos:pos + 8])
                body = data[pos + 8:pos + 8 + n]
                if kind == b"IHDR": head = struct.unpack(">IIBBBBB", body)
                if kind == b"IDAT": idat += body
                pos += 12 + n
            w, h, depth, colour, _, _, interlace = head
            assert depth == 8 and interlace == 0 and colour in (2, 6), head
            bpp = 3 if colour == 2 else 4
            raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
            for y in range(h):
                f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
                for i in range(stride):
                    a = line[i - bpp] if i >= bpp else 0
                    b = prev[i]
                    c = prev[i - bpp] if i >= bpp else 0
                    if f == 1: line[i] = (line[i] + a) & 255
                    elif f == 2: line[i] = (line[i] + b) & 255
                    elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
                    elif f == 4:
                        p = a + b - c
                        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                        line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
                rows.append(line)
                prev = line
            counts = {}
            for line in rows:
                for x in range(0, stride, bpp * 4):
                    key = bytes(line[x:x + 3])
                    counts[key] = counts.get(key, 0) + 1
            total = sum(counts.values())
            print(w, h, len(counts), max(counts.values()) / total)
            """
        let output = String(decoding: try python(script, arguments: [path]), as: UTF8.self)
        return output.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
    }

    static func python(_ script: String, input: String = "", arguments: [String] = []) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + arguments
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return data
    }

    /// Debian's `chromium`, or nil (bootstrap installs it).
    static var chromium: String? {
        ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    @Test(
        "free e-card quoted and sent from the phone (link and share text, no mail); its share page read by html.parser and screenshotted by headless Chromium; revoked → 404"
    )
    func shareEndToEnd() async throws {
        let smtp = try await NotifyHTTPTests.Sink("deploy/smtp-sink/smtp_sink.py") { port, dir in
            ["--port", "\(port)", "--dir", dir.appendingPathComponent("out").path]
        }
        defer { smtp.stop() }
        let system = try SystemHarness(ownDatabase: true)
        defer { _ = system.stopBlocking() }
        let base = "http://127.0.0.1:\(system.httpPort)"
        // ECARD_PRICE left at its default: free.
        try await ECardHTTPTests.startCardSystem(system, smtpPort: smtp.port, printing: ["PUBLIC_BASE_URL": base])

        // An e-card quote: no printing or postage line, free by default.
        let anonymous = OrdersHTTPTests.Client(port: system.httpPort, token: nil)
        let quote = await anonymous.send("POST", "/v1/quotes", json: #"{"kind": "ecard", "recipients": [{}, {}]}"#)
        #expect(quote.status == 200, "\(quote.body)")
        let lines = orders.json(quote.body)["lines"] as? [[String: Any]] ?? []
        #expect(lines.map { $0["kind"] as? String } == ["ecard"], "\(quote.body)")
        #expect((orders.json(quote.body)["total"] as? [String: Any])?["amount"] as? Int == 0)
        #expect(await anonymous.send("POST", "/v1/quotes", json: #"{"recipients": [{"country": "SE"}]}"#).status == 400)

        let (ann, _) = try await orders.signUp(system, "ann")
        let saved = await ann.send(
            "POST", "/v1/payment-methods",
            json: #"{"number": "4242424242424242", "expMonth": 12, "expYear": 2030, "cvc": "123"}"#)
        let card = try #require(orders.json(saved.body)["id"] as? String, "\(saved.body)")
        let upload = await ann.send("POST", "/v1/images", json: PrintingHTTPTests.bmp, contentType: "image/bmp")
        let imageId = try #require(orders.json(upload.body)["id"] as? String, "\(upload.body)")
        let run = UUID().uuidString.prefix(8).lowercased()
        let recipient = "secret-\(run)@example.org"
        let placed = await ann.send(
            "POST", "/v1/orders",
            json: """
                {"kind": "ecard", "currency": "EUR", "paymentMethodId": "\(card)",
                 "ecard": {"imageId": "\(imageId)", "greeting": "Hälsningar från Lund", "senderName": "Ann",
                   "delivery": "device", "recipients": [{"name": "Bo Hiddenname", "email": "\(recipient)"}]}}
                """, headers: ["Idempotency-Key": UUID().uuidString])
        #expect(placed.status == 201, "\(placed.body)")
        let created = orders.json(placed.body)
        let orderId = try #require(created["id"] as? String)
        #expect((created["total"] as? [String: Any])?["amount"] as? Int == 0, "free")
        #expect(created["state"] as? String == "paid")
        let device = try #require(created["deviceEcard"] as? [String: Any], "\(placed.body)")
        #expect((device["shareText"] as? String)?.contains("Hälsningar från Lund") == true)

        // Printing renders it and tells orders the link; GET /v1/orders/{id} hands it to the phone.
        var imageUrl: String?
        let rendered = Date().addingTimeInterval(60)
        while Date() < rendered, imageUrl == nil {
            let detail = await ann.send("GET", "/v1/orders/\(orderId)")
            imageUrl = (orders.json(detail.body)["deviceEcard"] as? [String: Any])?["imageUrl"] as? String
            if imageUrl == nil { try await Task.sleep(for: .milliseconds(200)) }
        }
        let link = try #require(imageUrl, "\(system.logs())")
        #expect(link.hasPrefix("\(base)/v1/ecards/"))
        let detail = orders.json(await ann.send("GET", "/v1/orders/\(orderId)").body)
        #expect(((detail["deviceEcard"] as? [String: Any])?["shareText"] as? String)?.contains(link) == true)
        #expect(try PrintJobsHTTPTests.run("/usr/bin/curl", ["-s", "-f", "-o", "/dev/null", link]) != nil)

        // Share: the owner only; the same link twice.
        let (bo, _) = try await orders.signUp(system, "bo")
        #expect(await bo.send("POST", "/v1/orders/\(orderId)/share").status == 404)
        #expect(await anonymous.send("POST", "/v1/orders/\(orderId)/share").status == 401)
        let shared = await ann.send("POST", "/v1/orders/\(orderId)/share")
        #expect(shared.status == 200, "\(shared.body)")
        let page = try #require(orders.json(shared.body)["url"] as? String, "\(shared.body)")
        let pageImage = try #require(orders.json(shared.body)["imageUrl"] as? String)
        #expect(page.hasPrefix("\(base)/s/") && page.count == "\(base)/s/".count + 43, "\(page)")
        #expect(orders.json(await ann.send("POST", "/v1/orders/\(orderId)/share").body)["url"] as? String == page)
        let path = String(page.dropFirst(base.count))

        let html = await anonymous.send("GET", path)
        #expect(html.status == 200)
        #expect(html.header("Content-Type")?.hasPrefix("text/html") == true, "\(html.head)")
        let parsed = try Self.parse(html.body)
        #expect(parsed.meta["og:title"]?.isEmpty == false)
        #expect(parsed.meta["og:description"] == "Hälsningar från Lund")
        #expect(parsed.meta["og:image"] == pageImage && pageImage.hasPrefix("http://"), "absolute")
        #expect(parsed.meta["og:url"] == page)
        #expect(parsed.meta["twitter:card"] == "summary_large_image")
        #expect(parsed.meta["twitter:image"] == pageImage)
        #expect(parsed.images == [pageImage])
        for secret in [recipient, "Hiddenname", orderId] {
            #expect(!html.body.contains(secret), "the page never shows \(secret)")
        }
        let jpeg = FileManager.default.temporaryDirectory.appendingPathComponent("share-\(UUID()).jpg")
        defer { try? FileManager.default.removeItem(at: jpeg) }
        #expect(try PrintJobsHTTPTests.run("/usr/bin/curl", ["-s", "-f", "-o", jpeg.path, pageImage]) != nil)
        #expect(try Data(contentsOf: jpeg).prefix(2) == Data([0xFF, 0xD8]), "a JPEG")

        // Headless Chromium opens the page (and loads its image) and takes a screenshot.
        let browser = try #require(Self.chromium, "chromium is missing: run deploy/scripts/bootstrap.sh")
        let shot = FileManager.default.temporaryDirectory.appendingPathComponent("share-\(UUID()).png")
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-\(UUID())")
        defer {
            try? FileManager.default.removeItem(at: shot)
            try? FileManager.default.removeItem(at: profile)
        }
        let chrome = Process()
        chrome.executableURL = URL(fileURLWithPath: browser)
        chrome.standardOutput = FileHandle.nullDevice
        chrome.standardError = FileHandle.nullDevice  // its D-Bus complaints on a machine without a session bus
        chrome.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
            "--user-data-dir=\(profile.path)", "--window-size=1000,800", "--virtual-time-budget=5000",
            "--screenshot=\(shot.path)", page,
        ]
        try chrome.run()
        chrome.waitUntilExit()
        let figures = try Self.pngFigures(shot.path)
        print("share page screenshot: width, height, colours sampled, commonest colour's share: \(figures)")
        try #require(figures.count == 4, "a PNG screenshot: \(figures)")
        #expect(figures[0] == 1000 && figures[1] == 800, "\(figures)")
        #expect(figures[2] > 50, "many colours (the card's image), not a blank page: \(figures)")
        #expect(figures[3] < 0.9, "no colour covers the whole page: \(figures)")

        // Revoked: the page and its image are 404; revoking again is fine.
        #expect(await bo.send("DELETE", "/v1/orders/\(orderId)/share").status == 204, "not Bo's: nothing happens")
        #expect(await anonymous.send("GET", path).status == 200)
        #expect(await ann.send("DELETE", "/v1/orders/\(orderId)/share").status == 204)
        #expect(await ann.send("DELETE", "/v1/orders/\(orderId)/share").status == 204)
        #expect(await anonymous.send("GET", path).status == 404)
        #expect(await anonymous.send("GET", path + "/image").status == 404)

        // The phone sent it: the server mailed nothing.
        try await Task.sleep(for: .seconds(2))
        #expect(smtp.files(".eml").filter { $0.contains(recipient) }.isEmpty, "no server mail for delivery device")
    }
}
