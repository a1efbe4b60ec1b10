import CImageCodecs
import Foundation
import Testing

/// Light previews through HTTP (gateway, broker, auth, orders and printing as processes): the
/// front of an 8-megapixel camera-like photo as a phone asks for it, a JPEG by default and a PNG
/// when `Accept` prefers it, with the headers a cache needs.
@Suite("postcard previews over HTTP: JPEG by default, PNG on request (real processes)", .serialized)
struct PreviewHTTPTests {
    let orders = OrdersHTTPTests()

    /// An 8-megapixel (3264 × 2448) photo as a phone's camera writes it (JPEG quality 90, 4:2:0):
    /// colour gradients with per-pixel noise.
    static func cameraPhoto() -> [UInt8] {
        let (width, height) = (3264, 2448)
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        var state: UInt32 = 0x2545_F491
        for y in 0..<height {
            for x in 0..<width {
                state ^= state << 13
                state ^= state >> 17
                state ^= state << 5
                let noise = Int(state & 31) - 16
                let index = (y * width + x) * 3
                rgb[index] = UInt8(clamping: x * 255 / width + noise)
                rgb[index + 1] = UInt8(clamping: y * 255 / height + noise)
                rgb[index + 2] = UInt8(clamping: (x + y) * 255 / (width + height) / 2 + 64 + noise)
            }
        }
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

    @Test(
        "a 1080-pixel A6 front of an 8-megapixel photo: JPEG under 60 KB by default, PNG with Accept: image/png; Vary, ETag, Cache-Control; w out of range is 400"
    )
    func lightPreviews() async throws {
        let system = try await PrintingHTTPTests().start()
        defer { _ = system.stopBlocking() }
        let (ann, _) = try await orders.signUp(system, "ann")
        let token = try #require(ann.token)
        let photo = Self.cameraPhoto()
        let uploaded = await UploadsHTTPTests.call(
            system, token, "POST", "/v1/images", headers: ["Content-Type": "image/jpeg"], body: photo)
        #expect(uploaded.status == 201, "\(String(decoding: uploaded.body, as: UTF8.self))")
        let id = try #require(orders.json(String(decoding: uploaded.body, as: UTF8.self))["id"] as? String)
        let front = Array(#"{"imageId": "\#(id)", "size": "A6", "side": "front"}"#.utf8)
        func preview(_ query: String, accept: String? = nil, body: [UInt8]? = nil) async -> UploadsHTTPTests.Exchange {
            var headers = ["Content-Type": "application/json"]
            if let accept { headers["Accept"] = accept }
            return await UploadsHTTPTests.call(
                system, token, "POST", "/v1/postcards/preview\(query)", headers: headers, body: body ?? front)
        }

        let jpeg = await preview("?w=1080")
        #expect(jpeg.status == 200, "\(String(decoding: jpeg.body, as: UTF8.self))")
        #expect(jpeg.headers["content-type"] == "image/jpeg")
        #expect(jpeg.body.count <= 60_000 && jpeg.body.count > 10_000, "\(jpeg.body.count) bytes")
        let size = try #require(UploadsHTTPTests.jpegSize(jpeg.body))
        #expect(size.width == 1080 && size.height == 766, "\(size)")
        #expect(jpeg.headers["vary"]?.contains("Accept") == true, "\(jpeg.headers)")
        #expect(jpeg.headers["cache-control"] == "private, no-store", "\(jpeg.headers)")
        let tag = try #require(jpeg.headers["etag"], "\(jpeg.headers)")
        #expect(tag.hasPrefix("\"") && tag.hasSuffix("\"") && tag.count == 34, "a strong tag: \(tag)")
        #expect(await preview("?w=1080").headers["etag"] == tag, "the same card has the same tag")

        let png = await preview("?w=1080", accept: "image/png")
        #expect(png.status == 200 && png.headers["content-type"] == "image/png", "\(png.headers)")
        #expect(png.body.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG signature")
        #expect(png.body.count > 4 * jpeg.body.count, "PNG \(png.body.count) bytes, JPEG \(jpeg.body.count)")
        #expect(png.headers["etag"] != nil && png.headers["etag"] != tag, "another representation, another tag")
        print("preview of an 8-megapixel photo, A6 front at 1080 px: JPEG \(jpeg.body.count) bytes, PNG \(png.body.count)")

        // A tie, or a type that is neither: the JPEG (no 406). The body's format wins.
        let tie = await preview("?w=1080", accept: "image/png, image/jpeg")
        #expect(tie.status == 200 && tie.headers["content-type"] == "image/jpeg")
        let json = await preview("", accept: "application/json")
        #expect(json.status == 200 && json.headers["content-type"] == "image/jpeg")
        #expect(UploadsHTTPTests.jpegSize(json.body)?.width == 583, "without w: 100 dpi")
        let asked = await preview(
            "?w=320", accept: "image/png",
            body: Array(#"{"imageId": "\#(id)", "size": "A6", "side": "front", "format": "jpeg"}"#.utf8))
        #expect(asked.headers["content-type"] == "image/jpeg" && UploadsHTTPTests.jpegSize(asked.body)?.width == 320)

        for bad in ["?w=100", "?w=4096"] {
            let refused = await preview(bad)
            let text = String(decoding: refused.body, as: UTF8.self)
            #expect(refused.status == 400 && text.contains("\"w\""), "\(bad): \(text)")
        }
    }
}
