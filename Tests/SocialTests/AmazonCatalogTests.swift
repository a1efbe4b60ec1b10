import AsyncHTTPClient
import Contract
import Foundation
import Glibc
import Logging
import NIOCore
import ServiceKit
import SocialContract
import SocialService
import Store
import Synchronization
import TestSupport
import Testing

/// The `amazon` catalogue against a local stand-in of the Product Advertising API 5.0
/// (`deploy/paapi-standin/standin.py`, a process started here) that recomputes every request's
/// AWS Signature Version 4 with its own code and refuses what does not match; and the signer
/// against a worked example from AWS's documentation.
@Suite("social: the Amazon PA-API 5.0 catalogue (SigV4, throttling, cache) against a stand-in", .serialized)
struct AmazonCatalogTests {
    /// The stand-in as a process on a free port.
    final class Standin: Sendable {
        let process: Process
        let port: Int
        let log: URL
        static let access = "AKIDBACKPLANETEST"
        static let secret = "c2VjcmV0LWZvci10aGUtc3RhbmQtaW4"
        static let tag = "backplane-20"


        init() async throws {
            try TestLayers.requireProcesses()
            port = try TestPorts.free()
            (process, log) = try await PythonStandin.start(
                "paapi-standin", port: port,
                environment: [
                    "STANDIN_ACCESS_KEY": Self.access, "STANDIN_SECRET_KEY": Self.secret, "STANDIN_PARTNER_TAG": Self.tag,
                ], banner: "paapi-standin on")
        }

        func stop() {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: log)
        }

        /// Runs `body` with a stand-in, stopped afterwards whatever happens.
        static func with(_ body: (Standin) async throws -> Void) async throws {
            let standin = try await Standin()
            do {
                try await body(standin)
                standin.stop()
            } catch {
                standin.stop()
                throw error
            }
        }

        func settings(secret: String = Standin.secret, ttl: TimeInterval = 60) -> AmazonSettings {
            AmazonSettings(
                accessKey: Self.access, secretKey: secret, partnerTag: Self.tag, endpoint: "http://127.0.0.1:\(port)",
                cacheTTL: ttl)
        }

        /// Sends a control command (POST with `json`) or reads the counters.
        func control(_ path: String, _ json: String? = nil) async throws -> [String: Int] {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/_standin/\(path)")
            if let json {
                request.method = .POST
                request.body = .bytes(ByteBuffer(bytes: Array(json.utf8)))
            }
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            let body = try await response.body.collect(upTo: 1 << 20)
            return (try? JSONDecoder().decode([String: Int].self, from: Data(body.readableBytesView))) ?? [:]
        }
    }

    static let logger: Logger = {
        var logger = Logger(label: "amazon-test")
        logger.logLevel = .critical
        return logger
    }()

    /// Waits a test's catalogue would have slept, recorded instead.
    final class Waits: Sendable {
        let list = Mutex<[Duration]>([])
        var sleep: @Sendable (Duration) async throws -> Void { { [self] wait in list.withLock { $0.append(wait) } } }
    }

    static func query(_ q: String?, category: String? = nil, limit: Int = 5, cursor: String? = nil) throws -> CatalogQuery {
        try CatalogQuery(.init(q: q, category: category, limit: limit, cursor: cursor))
    }

    @Test("SigV4: AWS's worked example (GET object with a range) signs to the documented signature")
    func knownAnswer() throws {
        let signer = SigV4(
            accessKey: "AKIAIOSFODNN7EXAMPLE", secretKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            region: "us-east-1", service: "s3")
        let emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        let (signed, signature) = signer.signature(
            method: "GET", path: "/test.txt", query: "",
            headers: [
                ("Host", "examplebucket.s3.amazonaws.com"), ("Range", "bytes=0-9"),
                ("x-amz-content-sha256", emptyHash), ("x-amz-date", "20130524T000000Z"),
            ], payload: [], amzDate: "20130524T000000Z")
        #expect(signed == "host;range;x-amz-content-sha256;x-amz-date")
        #expect(signature == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        #expect(SigV4.amzDate(Date(timeIntervalSince1970: 1_369_353_600)) == "20130524T000000Z")
    }

    @Test("SearchItems and GetItems signed and accepted; prices in minor units; unknown and malformed ids are no item")
    func searchAndItems() async throws {
        try await Standin.with { standin in
            let catalog = AmazonCatalogClient(settings: standin.settings(), clock: SystemClock(), logger: Self.logger)
            let page = try await catalog.search(try Self.query("teapot"))
            #expect(!page.items.isEmpty && page.items.allSatisfy { $0.title.contains("Teapot") })
            let first = try #require(page.items.first)
            #expect(first.id.hasPrefix("B0STAND") && first.link.contains("tag=backplane-20"))
            #expect(first.price.currency == "USD" && first.price.amount > 999)
            #expect(first.imageUrl.hasPrefix("https://") && !first.features.isEmpty && (1...5).contains(first.rating))
            let kitchen = try await catalog.search(try Self.query("novel", category: "kitchen", limit: 100))
            #expect(!kitchen.items.isEmpty && kitchen.items.allSatisfy { $0.category == "Kitchen" })
            let cheap = try await catalog.search(try CatalogQuery(.init(q: "novel", maxPrice: 2_000)))
            #expect(!cheap.items.isEmpty && cheap.items.allSatisfy { $0.price.amount <= 2_000 })
            let none = try await catalog.search(try Self.query("zeppelin"))
            #expect(none.items.isEmpty && none.nextCursor == nil, "NoResults is an empty page")
            // Paging: 10 a page at most; the cursor carries the next page.
            let wide = try await catalog.search(try Self.query("wireless ceramic classic smart vintage", limit: 100))
            #expect(wide.items.count == 10)
            let next = try await catalog.search(
                try Self.query("wireless ceramic classic smart vintage", limit: 100, cursor: wide.nextCursor))
            #expect(Set(next.items.map(\.id)).isDisjoint(with: wide.items.map(\.id)))
            // GetItems: by ASIN, a batch at a time; unknown ones left out; malformed never sent.
            let one = try #require(try await catalog.item("B0STAND003"))
            #expect(one.id == "B0STAND003" && one.price.amount == 1374 && one.available)
            let backordered = try await catalog.item("B0STAND007")?.available
            #expect(backordered == false, "not available now (backorder)")
            let noOffer = try await catalog.item("B0STAND011")?.available
            #expect(noOffer == false, "no offer: not available")
            let unknown = try await catalog.item("B0NOSUCH01")
            #expect(unknown == nil)
            let before = try await standin.control("stats")["getitems"] ?? 0
            let malformed = try await catalog.item("'; DROP TABLE")
            #expect(malformed == nil)
            let getItemsAfter = try await standin.control("stats")["getitems"]
            #expect(getItemsAfter == before, "a malformed id is never sent")
            let many = try await catalog.items((1...25).map { String(format: "B0STAND%03d", $0) } + ["B0NOSUCH02"])
            #expect(many.count == 25)
            let rejected = try await standin.control("stats")["rejected"]
            #expect(rejected == 0)
            let unknownCategory = await #expect(throws: ServiceError.self) {
                _ = try await catalog.search(try Self.query("x", category: "cars"))
            }
            #expect(unknownCategory?.code == .invalidArgument)
        }
    }

    @Test("a wrong secret is refused by the stand-in's own check of the signature: unavailable, never a result")
    func wrongSecret() async throws {
        try await Standin.with { standin in
            let catalog = AmazonCatalogClient(
                settings: standin.settings(secret: "not-the-secret"), clock: SystemClock(), logger: Self.logger)
            let error = await #expect(throws: ServiceError.self) { _ = try await catalog.search(try Self.query("teapot")) }
            #expect(error?.code == .unavailable)
            let rejected = try await standin.control("stats")["rejected"]
            #expect(rejected == 1)
        }
    }

    @Test("throttling: Retry-After waited out and tried again; past the limit, unavailable; a 500 is unavailable")
    func throttling() async throws {
        try await Standin.with { standin in
            let waits = Waits()
            let catalog = AmazonCatalogClient(
                settings: standin.settings(ttl: 0), clock: SystemClock(), logger: Self.logger, sleep: waits.sleep)
            _ = try await standin.control("throttle", #"{"count": 2, "retry_after": 3}"#)
            let page = try await catalog.search(try Self.query("teapot"))
            #expect(!page.items.isEmpty)
            #expect(waits.list.withLock { $0 } == [.seconds(3), .seconds(3)])
            _ = try await standin.control("throttle", #"{"count": 2, "retry_after": null}"#)
            _ = try await catalog.search(try Self.query("robot"))
            #expect(waits.list.withLock { Array($0.suffix(2)) } == [.milliseconds(250), .milliseconds(500)], "no header: back-off")
            _ = try await standin.control("throttle", #"{"count": 10, "retry_after": 1}"#)
            let refused = await #expect(throws: ServiceError.self) { _ = try await catalog.search(try Self.query("kettle")) }
            #expect(refused?.code == .unavailable)
            let throttled = try await standin.control("stats")["throttled"]
            #expect(throttled == 8, "2 + 2 + the first 4 of 10 (3 waited out, then given up)")
            _ = try await standin.control("throttle", #"{"count": 0}"#)
            _ = try await standin.control("fail", #"{"count": 1}"#)
            let failed = await #expect(throws: ServiceError.self) { _ = try await catalog.item("B0STAND001") }
            #expect(failed?.code == .unavailable)
            let recovered = try await catalog.item("B0STAND001")
            #expect(recovered != nil)
        }
    }

    @Test("the cache: the same search and the same item within the TTL ask nothing; after it, they ask again")
    func cache() async throws {
        try await Standin.with { standin in
            let clock = ManualClock(Date())
            let catalog = AmazonCatalogClient(settings: standin.settings(ttl: 60), clock: clock, logger: Self.logger)
            let first = try await catalog.search(try Self.query("headphones"))
            let again = try await catalog.search(try Self.query("headphones"))
            #expect(first == again)
            let id = try #require(first.items.first?.id)
            _ = try await catalog.item(id)
            var stats = try await standin.control("stats")
            #expect(stats["searchitems"] == 1 && stats["getitems"] == 0, "a searched item is cached too")
            clock.advance(by: 61)
            _ = try await catalog.item(id)
            _ = try await catalog.search(try Self.query("headphones"))
            stats = try await standin.control("stats")
            #expect(stats["searchitems"] == 2 && stats["getitems"] == 1)
        }
    }
}
