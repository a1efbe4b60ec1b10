import Foundation
import Testing

/// The standard gallery through HTTP (gateway, broker, auth, orders and printing as processes):
/// an admin adds three places, a user lists them nearest first a page at a time, and another
/// user previews a card with a gallery image.
@Suite("gallery over HTTP (real processes)", .serialized)
struct GalleryHTTPTests {
    let orders = OrdersHTTPTests()

    @Test(
        "admin adds three images; users list them by distance, page by page, each once; non-admin 403; no position 400; preview with a gallery image"
    )
    func gallery() async throws {
        let system = try await PrintingHTTPTests().start()
        defer { _ = system.stopBlocking() }
        let (_, adminName) = try await orders.signUp(system, "ada")
        try await PrintingHTTPTests.grant(["user", "admin"], to: adminName, in: system)
        let admin = try await orders.signIn(system, adminName)
        let (user, _) = try await orders.signUp(system, "ulf")
        let (other, _) = try await orders.signUp(system, "ola")
        let bmp = PrintingHTTPTests.bmp

        // Lund cathedral, Malmö, Copenhagen: 0 km, ~17 km, ~40 km from Lund.
        let places = [("Copenhagen", 55.6761, 12.5683), ("Lund", 55.7047, 13.1910), ("Malmö", 55.6050, 13.0038)]
        var ids: [String: String] = [:]
        for (title, lat, lon) in places {
            let path =
                "/v1/admin/gallery?title=\(title.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&lat=\(lat)&lon=\(lon)"
            #expect(await user.send("POST", path, json: bmp, contentType: "image/bmp").status == 403, "admins only")
            let added = await admin.send("POST", path, json: bmp, contentType: "image/bmp")
            #expect(added.status == 201, "\(added.body)")
            ids[title] = try #require(orders.json(added.body)["id"] as? String)
        }
        let noPlace = await admin.send("POST", "/v1/admin/gallery?title=Nowhere", json: bmp, contentType: "image/bmp")
        #expect(noPlace.status == 400 && noPlace.body.contains("lat"), "\(noPlace.body)")
        let wrongLat = await admin.send(
            "POST", "/v1/admin/gallery?title=X&lat=91&lon=0", json: bmp, contentType: "image/bmp")
        #expect(wrongLat.status == 400 && wrongLat.body.contains("lat"), "\(wrongLat.body)")

        // lat and lon are both or neither: one alone is refused, naming the other.
        let missing = await user.send("GET", "/v1/gallery?lat=55.7")
        #expect(missing.status == 400 && missing.body.contains("invalid_argument"), "\(missing.body)")
        #expect(
            await OrdersHTTPTests.Client(port: system.httpPort, token: nil).send("GET", "/v1/gallery?lat=1&lon=1")
                .status == 401)

        var seen: [[String: Any]] = []
        var cursor: String?
        repeat {
            let query = cursor.map { "&cursor=\($0)" } ?? ""
            let page = await user.send("GET", "/v1/gallery?lat=55.7047&lon=13.1910&limit=2\(query)")
            #expect(page.status == 200, "\(page.body)")
            let items = orders.json(page.body)["items"] as? [[String: Any]] ?? []
            #expect(items.count <= 2)
            seen += items
            cursor = orders.json(page.body)["nextCursor"] as? String
        } while cursor != nil && seen.count < 10
        #expect(seen.compactMap { $0["title"] as? String } == ["Lund", "Malmö", "Copenhagen"])
        #expect(seen.compactMap { $0["id"] as? String } == [ids["Lund"], ids["Malmö"], ids["Copenhagen"]])
        let distances = seen.compactMap { $0["distanceMeters"] as? Double }
        #expect(distances.count == 3 && distances[0] < 1 && (15_000...20_000).contains(distances[1]), "\(distances)")
        #expect(seen.first?["width"] as? Int == 4 && seen.first?["height"] as? Int == 3)

        let imageId = try #require(seen.last?["imageId"] as? String)
        let preview = await other.send(
            "POST", "/v1/postcards/preview", json: #"{"imageId": "\#(imageId)", "size": "A6", "side": "front"}"#)
        #expect(preview.status == 200, "another user previews with a gallery image: \(preview.body)")
        #expect(await other.send("GET", "/v1/images/\(imageId)").status == 200)

        let copenhagen = try #require(ids["Copenhagen"])
        #expect(await user.send("DELETE", "/v1/admin/gallery/\(copenhagen)").status == 403)
        #expect(await admin.send("DELETE", "/v1/admin/gallery/\(copenhagen)").status == 204)
        #expect(await admin.send("DELETE", "/v1/admin/gallery/\(copenhagen)").status == 404)
        let after = await user.send("GET", "/v1/gallery?lat=55.7047&lon=13.1910")
        #expect(!after.body.contains(copenhagen))
    }

    @Test(
        "without a position the gallery lists newest first; q finds by title, tag or place (any case), alone or nearest first with a position; lat without lon is 400; q over 100 characters is 400"
    )
    func browseAndSearch() async throws {
        let system = try await PrintingHTTPTests().start()
        defer { _ = system.stopBlocking() }
        let (_, adminName) = try await orders.signUp(system, "ada")
        try await PrintingHTTPTests.grant(["user", "admin"], to: adminName, in: system)
        let admin = try await orders.signIn(system, adminName)
        let (user, _) = try await orders.signUp(system, "ulf")
        func escaped(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }

        // Added in this order, so newest first is the reverse.
        let entries = [
            (title: "Cathedral at noon", tags: "church,Romanesque", place: "Lund", lat: 55.7047, lon: 13.1910),
            (title: "Harbour at dawn", tags: "boats", place: "Malmö", lat: 55.6050, lon: 13.0038),
            (title: "Dunes", tags: "Beach,sunset", place: "Skanör", lat: 55.4167, lon: 12.8333),
        ]
        var ids: [String] = []
        for entry in entries {
            let added = await admin.send(
                "POST",
                "/v1/admin/gallery?title=\(escaped(entry.title))&lat=\(entry.lat)&lon=\(entry.lon)"
                    + "&tags=\(escaped(entry.tags))&place=\(escaped(entry.place))",
                json: PrintingHTTPTests.bmp, contentType: "image/bmp")
            #expect(added.status == 201, "\(added.body)")
            ids.append(try #require(orders.json(added.body)["id"] as? String))
            try await Task.sleep(for: .milliseconds(20))
        }
        let tooManyTags = await admin.send(
            "POST", "/v1/admin/gallery?title=X&lat=1&lon=1&tags=\(escaped((0...10).map { "t\($0)" }.joined(separator: ",")))",
            json: PrintingHTTPTests.bmp, contentType: "image/bmp")
        #expect(tooManyTags.status == 400 && orders.field(tooManyTags) == "tags", "\(tooManyTags.body)")

        func list(_ query: String) async throws -> (items: [[String: Any]], next: String?) {
            let page = await user.send("GET", "/v1/gallery\(query)")
            #expect(page.status == 200, "\(query): \(page.body)")
            let object = orders.json(page.body)
            return (object["items"] as? [[String: Any]] ?? [], object["nextCursor"] as? String)
        }

        // No position: newest first, page by page, no distances.
        let first = try await list("?limit=2")
        let second = try await list("?limit=2&cursor=\(try #require(first.next))")
        let newest = (first.items + second.items).compactMap { $0["id"] as? String }
        #expect(newest == ids.reversed(), "\(first.items + second.items)")
        #expect((first.items + second.items).allSatisfy { $0["distanceMeters"] == nil })
        #expect(first.items.first?["tags"] as? [String] == ["Beach", "sunset"] && first.items.first?["place"] as? String == "Skanör")

        // q matches the title, a tag or the place name, ignoring case and anywhere in a word.
        func found(_ query: String) async throws -> [String] {
            try await list(query).items.compactMap { $0["title"] as? String }
        }
        #expect(try await found("?q=dawn") == ["Harbour at dawn"], "title")
        #expect(try await found("?q=SUNSET") == ["Dunes"], "tag")
        #expect(try await found("?q=lun") == ["Cathedral at noon"], "place")
        #expect(try await found("?q=\(escaped("malmö harbour"))") == ["Harbour at dawn"], "every word")
        #expect(try await found("?q=\(escaped("malmö beach"))").isEmpty)
        #expect(try await found("?q=at") == ["Harbour at dawn", "Cathedral at noon"], "newest first")
        // With a position as well: the matches nearest first.
        #expect(try await found("?q=at&lat=55.7047&lon=13.1910") == ["Cathedral at noon", "Harbour at dawn"])
        let near = try await list("?q=at&lat=55.6050&lon=13.0038").items
        #expect(near.first?["title"] as? String == "Harbour at dawn" && near.first?["distanceMeters"] as? Double == 0)

        // One half of a position, a search too long, a cursor of another search: 400 naming the field.
        let latOnly = await user.send("GET", "/v1/gallery?lat=55.7")
        #expect(latOnly.status == 400 && orders.field(latOnly) == "lon", "\(latOnly.body)")
        let lonOnly = await user.send("GET", "/v1/gallery?lon=13.2&q=lund")
        #expect(lonOnly.status == 400 && orders.field(lonOnly) == "lat", "\(lonOnly.body)")
        let long = await user.send("GET", "/v1/gallery?q=\(String(repeating: "a", count: 101))")
        #expect(long.status == 400 && orders.field(long) == "q", "\(long.body)")
        let otherSearch = await user.send("GET", "/v1/gallery?limit=2&q=lund&cursor=\(try #require(first.next))")
        #expect(otherSearch.status == 400 && orders.field(otherSearch) == "cursor", "\(otherSearch.body)")
    }
}
