import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Quotes and orders through the HTTP gateway of a running system (`make up`): an open loop
/// that sends requests at a fixed rate, whatever the answers' speed, and measures each latency
/// from the moment the request was due (so a slow answer cannot hide the requests queued
/// behind it). Blocking sockets on threads of their own, one connection per request.
public struct OrdersBench: Sendable {
    /// `host:port` of the gateway.
    public let host: String
    public let port: Int
    /// Requests per second.
    public let rate: Double
    /// Measured seconds per case.
    public let seconds: Double
    /// Sender threads (requests that may be in flight at once).
    public let threads: Int

    /// Creates the benchmark.
    public init(url: String, rate: Double, seconds: Double, threads: Int) throws {
        guard let components = URLComponents(string: url), let host = components.host else {
            throw BenchError("not a URL: \(url)")
        }
        self.host = host == "localhost" ? "127.0.0.1" : host
        self.port = components.port ?? 80
        self.rate = rate
        self.seconds = seconds
        self.threads = threads
    }

    /// Signs up a user with a card, then measures quotes and then orders.
    public func run(progress: @Sendable (String) -> Void) async throws -> [RunResult] {
        let (token, card) = try await offThread { try self.prepare() }
        let auth = ["Authorization": "Bearer \(token)"]
        let quote = #"{"size": "A6", "recipients": [{"country": "SE"}, {"country": "US"}], "currency": "USD"}"#
        progress("quotes at \(Int(rate))/s for \(seconds) s")
        let quotes = try await offThread {
            try self.openLoop(name: "POST /v1/quotes at \(Int(rate))/s", expect: 200) { _ in
                ("POST", "/v1/quotes", quote, auth)
            }
        }
        let run = UUID().uuidString.prefix(8)
        progress("orders at \(Int(rate))/s for \(seconds) s")
        let orders = try await offThread {
            try self.openLoop(name: "POST /v1/orders at \(Int(rate))/s", expect: 201) { index in
                let body = """
                    {"kind": "postcard", "currency": "USD", "paymentMethodId": "\(card)",
                     "postcard": {"size": "A6", "greeting": "Hej",
                       "recipients": [{"name": "Load \(index)", "address": {"line1": "Storgatan 1", "city": "Lund",
                                       "country": "SE"}}]}}
                    """
                return ("POST", "/v1/orders", body, auth.merging(["Idempotency-Key": "\(run)-\(index)"]) { $1 })
            }
        }
        return [quotes, orders]
    }

    func prepare() throws -> (token: String, card: String) {
        let username = "bench-\(UUID().uuidString.prefix(8))@example.org"
        let credentials = #"{"username": "\#(username)", "password": "Lund2026x"}"#
        let registered = try request("POST", "/v1/auth/register", credentials, [:])
        guard registered.status == 201 else { throw BenchError("register: \(registered.status) \(registered.body)") }
        let login = try request("POST", "/v1/auth/login", credentials, [:])
        guard let token = jsonField("accessToken", in: login.body) else {
            throw BenchError("login: \(login.status) \(login.body)")
        }
        let card = try request(
            "POST", "/v1/payment-methods",
            #"{"number": "4242424242424242", "expMonth": 12, "expYear": 2099, "cvc": "123"}"#,
            ["Authorization": "Bearer \(token)"])
        guard let id = jsonField("id", in: card.body) else { throw BenchError("card: \(card.status) \(card.body)") }
        return (token, id)
    }

    /// Sends `rate × seconds` requests on schedule from `threads` threads; a quarter of a
    /// second's worth first, unmeasured, as warm-up.
    func openLoop(
        name: String, expect: Int, _ make: @escaping @Sendable (Int) -> (String, String, String, [String: String])
    ) throws -> RunResult {
        let total = Int(rate * seconds)
        let warmup = Int(rate / 4)
        let next = Atomic<Int>(0)
        let failures = Atomic<Int>(0)
        let latencies = Mutex<[UInt64]>([])
        let start = DispatchTime.now().uptimeNanoseconds + 100_000_000
        let interval = 1e9 / rate
        let group = DispatchGroup()
        for _ in 0..<threads {
            group.enter()
            Thread {
                var mine: [UInt64] = []
                while true {
                    let index = next.add(1, ordering: .relaxed).oldValue
                    if index >= total + warmup { break }
                    let due = start + UInt64(Double(index) * interval)
                    let now = DispatchTime.now().uptimeNanoseconds
                    if due > now { usleep(UInt32((due - now) / 1000)) }
                    let (method, path, body, headers) = make(index)
                    let status = (try? self.request(method, path, body, headers).status) ?? 0
                    let took = DispatchTime.now().uptimeNanoseconds - due
                    if index < warmup { continue }
                    if status == expect { mine.append(took) } else { failures.add(1, ordering: .relaxed) }
                }
                latencies.withLock { $0 += mine }
                group.leave()
            }.start()
        }
        group.wait()
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 - Double(warmup) / rate
        var recorder = LatencyRecorder()
        for latency in latencies.withLock({ $0 }) { recorder.record(nanoseconds: latency) }
        let failed = failures.load(ordering: .relaxed)
        return recorder.result(name: failed == 0 ? name : "\(name) (\(failed) failed)", seconds: elapsed)
    }

    /// One HTTP/1.1 request on a new connection; status and body.
    func request(_ method: String, _ path: String, _ body: String?, _ headers: [String: String]) throws
        -> (status: Int, body: String)
    {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(host)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw BenchError("cannot connect to \(host):\(port)") }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        let bytes = Array((head + "\r\n" + (body ?? "")).utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            data.append(contentsOf: buffer[0..<count])
        }
        let text = String(decoding: data, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { throw BenchError("no HTTP answer from \(path)") }
        let status = text[..<end.lowerBound].split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, String(text[end.upperBound...]))
    }
}

/// Runs blocking work on a thread of its own, off the cooperative pool.
func offThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    let result: Result<T, any Error> = await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: Result { try work() }) }.start()
    }
    return try result.get()
}

/// A failure of the benchmark set-up.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
