import Crypto
import Foundation
import Glibc
import Testing

/// Resumable uploads (tus 1.0.0 core + creation) and scaled images through HTTP: gateway,
/// broker, auth, orders and printing as real processes. A 2.7 MB photo is cut off at a random
/// byte by dropping the connection mid-`PATCH`, the client asks `HEAD` where to go on and sends
/// the rest; the image equals the file (SHA-256); its thumbnails have the sizes asked for.
@Suite("resumable uploads and thumbnails over HTTP (real processes)", .serialized)
struct UploadsHTTPTests {
    let orders = OrdersHTTPTests()

    /// A blocking HTTP/1.1 exchange with a binary body; `cutAfter` sends that many bytes of the
    /// body (of a `Content-Length` announcing all of it) and then drops the connection.
    struct Exchange: Sendable {
        let status: Int
        let headers: [String: String]
        let body: [UInt8]

        static func perform(
            port: Int, _ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8]? = nil,
            cutAfter: Int? = nil
        ) -> Exchange? {
            guard let fd = HTTP.connectedSocket(port: port, timeoutSeconds: 30) else { return nil }
            defer { close(fd) }
            var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            if let body { head += "Content-Length: \(body.count)\r\n" }
            var request = Array((head + "\r\n").utf8)
            if let body { request += body.prefix(cutAfter ?? body.count) }
            var sent = 0
            while sent < request.count {
                let count = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if count <= 0 { return nil }
                sent += count
            }
            if cutAfter != nil { return Exchange(status: 0, headers: [:], body: []) }
            var data: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            // A HEAD answer has no body: stop at the end of the header block.
            while method != "HEAD" || !data.containsHeaderEnd {
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count <= 0 { break }
                data.append(contentsOf: buffer[0..<count])
            }
            guard let end = data.headerEnd else { return nil }
            let lines = String(decoding: data[..<end], as: UTF8.self).split(separator: "\r\n")
            let parts = lines.first?.split(separator: " ") ?? []
            guard parts.count >= 2, let status = Int(parts[1]) else { return nil }
            var fields: [String: String] = [:]
            for line in lines.dropFirst() {
                let pair = line.split(separator: ":", maxSplits: 1)
                if pair.count == 2 { fields[pair[0].lowercased()] = pair[1].trimmingCharacters(in: .whitespaces) }
            }
            return Exchange(status: status, headers: fields, body: Array(data[(end + 4)...]))
        }
    }

    static func call(
        _ system: SystemHarness, _ token: String?, _ method: String, _ path: String, headers: [String: String] = [:],
        body: [UInt8]? = nil, cutAfter: Int? = nil
    ) async -> Exchange {
        var all = headers
        if let token { all["Authorization"] = "Bearer \(token)" }
        let port = system.httpPort
        let fields = all
        return await offPool {
            Exchange.perform(port: port, method, path, headers: fields, body: body, cutAfter: cutAfter)
                ?? Exchange(status: 0, headers: [:], body: [])
        }
    }

    /// A 24-bit BMP of `width` × `height` with a gradient and noise (2.7 MB at 1280 × 720).
    static func bmp(width: Int, height: Int) -> [UInt8] {
        func le(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).map { UInt8((value >> ($0 * 8)) & 0xFF) } }
        let row = (width * 3 + 3) / 4 * 4
        var bytes = Array("BM".utf8) + le(54 + row * height, 4) + le(0, 4) + le(54, 4) + le(40, 4) + le(width, 4)
        bytes += le(height, 4) + le(1, 2) + le(24, 2) + le(0, 4) + le(row * height, 4) + le(0, 16)
        var state: UInt32 = 0x1234_5678
        for y in 0..<height {
            for x in 0..<row {
                state ^= state << 13
                state ^= state >> 17
                state ^= state << 5
                bytes.append(x < width * 3 ? UInt8(truncatingIfNeeded: (x / 3 + y) / 8 + Int(state & 15)) : 0)
            }
        }
        return bytes
    }

    /// Width and height of a baseline or progressive JPEG (its SOF segment).
    static func jpegSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        var index = 2
        while index + 9 < bytes.count, bytes[index] == 0xFF {
            let marker = bytes[index + 1]
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if [0xC0, 0xC1, 0xC2].contains(marker) {
                return (
                    Int(bytes[index + 7]) << 8 | Int(bytes[index + 8]),
                    Int(bytes[index + 5]) << 8 | Int(bytes[index + 6])
                )
            }
            index += 2 + length
        }
        return nil
    }

    @Test(
        "tus: OPTIONS; 412 without Tus-Resumable; 413 too large; a PATCH cut at a random byte keeps what arrived; HEAD; 409 at a wrong offset; the rest; the image equals the file; owner only"
    )
    func resumableUpload() async throws {
        let system = try await PrintingHTTPTests().start()
        defer { _ = system.stopBlocking() }
        let (user, _) = try await orders.signUp(system, "tia")
        let (other, _) = try await orders.signUp(system, "tom")
        let token = try #require(user.token)
        let tus = ["Tus-Resumable": "1.0.0"]

        let options = await Self.call(system, nil, "OPTIONS", "/v1/uploads")
        #expect(options.status == 204)
        #expect(options.headers["tus-version"] == "1.0.0" && options.headers["tus-extension"] == "creation")
        #expect(options.headers["tus-resumable"] == "1.0.0")

        let photo = Self.bmp(width: 1280, height: 720)
        let length = ["Upload-Length": "\(photo.count)"]
        #expect(await Self.call(system, nil, "POST", "/v1/uploads", headers: tus.merging(length) { $1 }).status == 401)
        let noVersion = await Self.call(system, token, "POST", "/v1/uploads", headers: length)
        #expect(noVersion.status == 412 && noVersion.headers["tus-version"] == "1.0.0")
        let huge = await Self.call(
            system, token, "POST", "/v1/uploads", headers: tus.merging(["Upload-Length": "900000000"]) { $1 })
        #expect(huge.status == 413, "\(String(decoding: huge.body, as: UTF8.self))")
        let metadata = ["Upload-Metadata": "filetype \(Data("image/bmp".utf8).base64EncodedString())"]
        let created = await Self.call(
            system, token, "POST", "/v1/uploads", headers: tus.merging(length) { $1 }.merging(metadata) { $1 })
        #expect(created.status == 201, "\(String(decoding: created.body, as: UTF8.self))")
        #expect(created.headers["upload-offset"] == "0" && created.headers["tus-resumable"] == "1.0.0")
        let location = try #require(created.headers["location"])
        #expect(location.hasPrefix("/v1/uploads/"))

        // Cut: a PATCH announcing the whole file, the connection dropped after a random byte.
        let cut = Int.random(in: 300_000..<(photo.count - 300_000))
        let patch = tus.merging(["Content-Type": "application/offset+octet-stream", "Upload-Offset": "0"]) { $1 }
        _ = await Self.call(system, token, "PATCH", location, headers: patch, body: photo, cutAfter: cut)
        var offset = -1
        var head = Exchange(status: 0, headers: [:], body: [])
        let deadline = Date().addingTimeInterval(20)
        repeat {
            try await Task.sleep(for: .milliseconds(200))
            head = await Self.call(system, token, "HEAD", location, headers: tus)
            offset = Int(head.headers["upload-offset"] ?? "") ?? -1
        } while offset != cut && Date() < deadline
        #expect(head.status == 200 && head.body.isEmpty)
        #expect(head.headers["upload-length"] == "\(photo.count)" && head.headers["cache-control"] == "no-store")
        #expect(offset == cut, "HEAD after a cut at byte \(cut) says \(offset)")
        #expect(offset > 0 && offset <= cut)

        #expect(await Self.call(system, other.token, "HEAD", location, headers: tus).status == 404)
        let foreign = await Self.call(
            system, other.token, "PATCH", location, headers: patch.merging(["Upload-Offset": "\(offset)"]) { $1 },
            body: Array(photo[offset...]))
        #expect(foreign.status == 404 && foreign.headers["tus-resumable"] == "1.0.0")
        let wrong = await Self.call(
            system, token, "PATCH", location, headers: patch.merging(["Upload-Offset": "0"]) { $1 },
            body: Array(photo[0..<1000]))
        #expect(wrong.status == 409 && wrong.headers["tus-resumable"] == "1.0.0")
        let details = orders.json(String(decoding: wrong.body, as: UTF8.self))["details"] as? [String: Any]
        #expect(details?["offset"] as? Int == offset)

        let rest = await Self.call(
            system, token, "PATCH", location, headers: patch.merging(["Upload-Offset": "\(offset)"]) { $1 },
            body: Array(photo[offset...]))
        #expect(rest.status == 204, "\(String(decoding: rest.body, as: UTF8.self))")
        #expect(rest.headers["upload-offset"] == "\(photo.count)")
        let imageId = try #require(rest.headers["x-image-id"])
        head = await Self.call(system, token, "HEAD", location, headers: tus)
        #expect(head.headers["x-image-id"] == imageId && head.headers["upload-offset"] == "\(photo.count)")

        let info = await user.send("GET", "/v1/images/\(imageId)")
        #expect(info.status == 200)
        let sha = SHA256.hash(data: photo).map { String(format: "%02x", $0) }.joined()
        #expect(orders.json(info.body)["sha256"] as? String == sha, "the image is the file, byte for byte")
        #expect(orders.json(info.body)["bytes"] as? Int == photo.count)
        #expect(orders.json(info.body)["width"] as? Int == 1280)
        #expect(await other.send("GET", "/v1/images/\(imageId)").status == 404)

        // Thumbnails and screen sizes of it.
        for (width, height) in [(128, 72), (320, 180), (1080, 608)] {
            let path = "/v1/images/\(imageId)/content?w=\(width)"
            let content = await Self.call(system, token, "GET", path)
            #expect(content.status == 200 && content.headers["content-type"] == "image/jpeg")
            let size = Self.jpegSize(content.body)
            #expect(size?.width == width && size?.height == height, "w=\(width): \(String(describing: size))")
            #expect(content.headers["cache-control"] == "public, max-age=31536000, immutable")
            let tag = try #require(content.headers["etag"])
            #expect(tag == "\"\(sha)-w\(width)-v1\"")
            let again = await Self.call(system, token, "GET", path)
            #expect(again.body == content.body && again.headers["etag"] == tag)
            let current = await Self.call(system, token, "GET", path, headers: ["If-None-Match": tag])
            #expect(current.status == 304 && current.body.isEmpty && current.headers["etag"] == tag)
            #expect(await Self.call(system, other.token, "GET", path).status == 404)
        }
        let odd = await Self.call(system, token, "GET", "/v1/images/\(imageId)/content?w=100")
        #expect(odd.status == 400, "\(String(decoding: odd.body, as: UTF8.self))")
        #expect(await Self.call(system, nil, "GET", "/v1/images/\(imageId)/content?w=128").status == 401)
    }

    @Test(
        "loadgen postcard --image: journeys upload with tus, fetch the 320 px copy, order; bytes per journey reported against the photo"
    )
    func loadgenJourneyBytes() async throws {
        let system = try await PrintingHTTPTests().start()
        defer { _ = system.stopBlocking() }
        let photo = Self.bmp(width: 1280, height: 720)
        let file = system.logDirectory.appendingPathComponent("photo.bmp")
        try Data(photo).write(to: file)
        let report = system.logDirectory.appendingPathComponent("postcard.json")
        let (status, output) = try await system.runToEnd(
            "loadgen",
            arguments: [
                "postcard", "--url", "http://127.0.0.1:\(system.httpPort)", "--seconds", "3", "--postcard-rate", "1",
                "--accounts", "2", "--image", file.path, "--json", report.path,
            ])
        #expect(status == 0, "\(output)")
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any]
        let requests = try #require(object?["requests"] as? [[String: Any]], "\(output)")
        for name in [
            "postcard upload start", "postcard upload bytes", "postcard image w=320", "postcard order and pay",
        ] {
            let entry = try #require(requests.first { $0["name"] as? String == name }, "no \(name) in \(output)")
            #expect((entry["count"] as? Int ?? 0) > 0 && entry["errors"] as? Int == 0, "\(name): \(entry)")
        }
        let journeys = object?["journeys"] as? [String: [String: Int]]
        let journey = try #require(journeys?["postcard journey"], "\(output)")
        #expect((journey["count"] ?? 0) > 0)
        #expect(journey["photoBytes"] == photo.count)
        // The photo goes up once: what a journey sends is the photo and a few kilobytes of requests.
        let sent = journey["sentPerJourney"] ?? 0
        #expect(sent > photo.count && sent < photo.count + 20_000, "\(journey)")
        #expect((journey["receivedPerJourney"] ?? 0) > 1_000, "\(journey)")
        #expect(output.contains("postcard journey:") && output.contains("bytes sent"), "\(output)")
        for line in output.split(separator: "\n") where line.contains("postcard journey:") { print(line) }
    }
}

extension Array where Element == UInt8 {
    /// The index of the blank line ending an HTTP header block.
    var headerEnd: Int? {
        guard count >= 4 else { return nil }
        return (0...(count - 4)).first {
            self[$0] == 13 && self[$0 + 1] == 10 && self[$0 + 2] == 13 && self[$0 + 3] == 10
        }
    }

    var containsHeaderEnd: Bool { headerEnd != nil }
}
