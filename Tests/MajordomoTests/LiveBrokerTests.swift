import Foundation
import Majordomo
import ServiceKit
import Synchronization
import Testing
import ZeroMQ

/// Client, broker and workers over real TCP sockets on loopback.
@Suite("Majordomo over real sockets")
struct LiveBrokerTests {
    @Test(
        "many requests in flight over one client socket each get their own reply",
        arguments: MajordomoWorker.HandlerStart.allCases)
    func manyInFlight(start: MajordomoWorker.HandlerStart) async throws {
        try await Harness.withBroker { broker in
            let worker = Harness.echoWorker(broker.endpoint, concurrency: 4, start: start) { body in
                // Half the handlers answer without suspending, half wait first.
                if body[2][0] % 2 == 1 { try? await Task.sleep(for: .milliseconds(Int.random(in: 1...5))) }
                return body
            }
            let client = Harness.client(broker.endpoint)
            try await Harness.withRunning([client, worker]) {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<300 {
                        group.addTask {
                            let body: [Frame] = [Array("req-\(index)".utf8), [], [UInt8(index % 256)]]
                            let reply = try await client.request(service: "echo", body: body, timeout: .seconds(20))
                            #expect(reply == body)
                        }
                    }
                    try await group.waitForAll()
                }
            }
        }
    }

    @Test(
        "a handler starts on the worker's I/O thread only when asked to, and leaves it at its first suspension")
    func handlerStart() async throws {
        try await Harness.withBroker { broker in
            // Each handler reports the thread it began on and the one it ended on; the second
            // frame of the request says whether it suspends in between.
            let handler: MajordomoWorker.Handler = { body in
                let began = currentThreadName()
                if body[0] == [1] { try? await Task.sleep(for: .milliseconds(5)) }
                return [Array(began.utf8), Array(currentThreadName().utf8)]
            }
            let pool = Harness.echoWorker(broker.endpoint, service: "pool", handler: handler)
            let inline = Harness.echoWorker(
                broker.endpoint, service: "io", start: .ioThread, handler: handler)
            let client = Harness.client(broker.endpoint)
            try await Harness.withRunning([client, pool, inline]) {
                func threads(_ service: String, suspends: Bool) async throws -> [String] {
                    text(try await client.request(service: service, body: [[suspends ? 1 : 0]], timeout: .seconds(10)))
                }
                // The worker's I/O thread is "mdp-worker-" and the service name.
                #expect(try await threads("io", suspends: false) == ["mdp-worker-io", "mdp-worker-io"])
                let suspending = try await threads("io", suspends: true)
                #expect(suspending[0] == "mdp-worker-io")
                #expect(suspending[1] != "mdp-worker-io")
                for suspends in [false, true] {
                    #expect(try await threads("pool", suspends: suspends).allSatisfy { $0 != "mdp-worker-pool" })
                }
            }
        }
    }

    @Test(
        "auto: the operations named quick start on the I/O thread, every other one on the task pool")
    func quickOperationsStartOnTheIOThread() async throws {
        try await Harness.withBroker { broker in
            // The first frame is the operation (as in the wire contract); the second says whether
            // the handler suspends.
            let handler: MajordomoWorker.Handler = { body in
                let began = currentThreadName()
                if body[1] == [1] { try? await Task.sleep(for: .milliseconds(5)) }
                return [Array(began.utf8), Array(currentThreadName().utf8)]
            }
            let auto = Harness.echoWorker(
                broker.endpoint, service: "auto", concurrency: 8, start: .quickOnIOThread,
                quick: ["cached-read"], handler: handler)
            let pool = Harness.echoWorker(
                broker.endpoint, service: "pool", start: .taskPool, quick: ["cached-read"],
                handler: handler)
            let client = Harness.client(broker.endpoint)
            try await Harness.withRunning([client, auto, pool]) {
                func threads(_ service: String, _ operation: String, suspends: Bool) async throws -> [String] {
                    text(
                        try await client.request(
                            service: service, body: [Array(operation.utf8), [suspends ? 1 : 0]], timeout: .seconds(10)))
                }
                #expect(try await threads("auto", "cached-read", suspends: false) == ["mdp-worker-auto", "mdp-worker-auto"])
                let suspending = try await threads("auto", "cached-read", suspends: true)
                #expect(suspending[0] == "mdp-worker-auto")
                #expect(suspending[1] != "mdp-worker-auto")
                for suspends in [false, true] {
                    #expect(try await threads("auto", "write", suspends: suspends).allSatisfy { $0 != "mdp-worker-auto" })
                    // `pool` ignores the quick list.
                    #expect(
                        try await threads("pool", "cached-read", suspends: suspends).allSatisfy { $0 != "mdp-worker-pool" })
                }
                // Quick and pooled requests arriving together are all answered, each by its own.
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<200 {
                        group.addTask {
                            let operation = index % 2 == 0 ? "cached-read" : "write"
                            let reply = try await threads("auto", operation, suspends: index % 3 == 0)
                            #expect((reply[0] == "mdp-worker-auto") == (operation == "cached-read"))
                        }
                    }
                    try await group.waitForAll()
                }
            }
        }
    }

    @Test("WORKER_HANDLER_START's choices: which requests start on the I/O thread")
    func handlerStartChoices() {
        let quick: Set<Frame> = [Array("cached-read".utf8)]
        let read = Array("cached-read".utf8), write = Array("write".utf8)
        #expect(MajordomoWorker.HandlerStart.quickOnIOThread.startsOnIOThread(read, quick: quick))
        #expect(!MajordomoWorker.HandlerStart.quickOnIOThread.startsOnIOThread(write, quick: quick))
        #expect(!MajordomoWorker.HandlerStart.quickOnIOThread.startsOnIOThread(nil, quick: quick))
        #expect(!MajordomoWorker.HandlerStart.quickOnIOThread.startsOnIOThread(read, quick: []))
        #expect(!MajordomoWorker.HandlerStart.taskPool.startsOnIOThread(read, quick: quick))
        #expect(MajordomoWorker.HandlerStart.ioThread.startsOnIOThread(write, quick: quick))
        #expect(MajordomoWorker.HandlerStart(rawValue: "auto") == .quickOnIOThread)
    }

    @Test(
        "on the pool, a handler that computes before it suspends holds up neither the I/O thread nor a later request")
    func computingHandler() async throws {
        final class Flags: Sendable {
            let computing = Atomic<Bool>(false)
            let released = Atomic<Bool>(false)
        }
        let flags = Flags()
        try await Harness.withBroker { broker in
            // "compute" holds its thread without suspending, as a long computation would, until a
            // later request has been handled (10 s at most); any other request releases it.
            let handler: MajordomoWorker.Handler = { body in
                guard body == [Array("compute".utf8)] else {
                    flags.released.store(true, ordering: .releasing)
                    return body
                }
                flags.computing.store(true, ordering: .releasing)
                let deadline = Monotonic.milliseconds() + 10_000
                while !flags.released.load(ordering: .acquiring) && Monotonic.milliseconds() < deadline { usleep(1_000) }
                return body
            }
            let worker = Harness.echoWorker(broker.endpoint, start: .taskPool, handler: handler)
            let client = Harness.client(broker.endpoint)
            try await Harness.withRunning([client, worker]) {
                async let computed = client.request(service: "echo", body: [Array("compute".utf8)], timeout: .seconds(20))
                try await Harness.eventually("the computing handler runs") {
                    flags.computing.load(ordering: .acquiring)
                }
                // Sent after the first was read, so it comes in a read of its own: answered while
                // the first still computes (had it waited behind it, 5 s would run out first).
                let quick = try await client.request(service: "echo", body: [Array("quick".utf8)], timeout: .seconds(5))
                #expect(text(quick) == ["quick"])
                #expect(text(try await computed) == ["compute"])
            }
        }
    }

    @Test("requests are spread over worker processes")
    func spreadOverWorkers() async throws {
        try await Harness.withBroker { broker in
            let first = Harness.echoWorker(broker.endpoint, concurrency: 1, tag: "one")
            let second = Harness.echoWorker(broker.endpoint, concurrency: 1, tag: "two")
            let client = Harness.client(broker.endpoint)
            try await Harness.withRunning([client, first, second]) {
                try await Harness.eventually("both workers registered") { try await client.isServed("echo") }
                try await Task.sleep(for: .milliseconds(200))
                var seen: Set<String> = []
                for _ in 0..<10 {
                    let reply = try await client.request(service: "echo", body: [[1]], timeout: .seconds(10))
                    seen.insert(text([reply[0]])[0])
                }
                #expect(seen == ["one", "two"])
            }
        }
    }

    @Test("a slow service gives deadline_exceeded at the caller's deadline")
    func deadline() async throws {
        try await Harness.withBroker { broker in
            let worker = Harness.echoWorker(broker.endpoint, concurrency: 1) { body in
                // Far longer than the callers' deadlines, so that an answer that waited for the
                // worker cannot pass for one given at the deadline, even on a starved machine.
                try? await Task.sleep(for: .seconds(6))
                return body
            }
            let client = Harness.client(broker.endpoint)
            try await Harness.withRunning([client, worker]) {
                let started = ContinuousClock.now
                await #expect(throws: MajordomoError.self) {
                    _ = try await client.request(service: "echo", body: [[1]], timeout: .milliseconds(300))
                }
                do {
                    _ = try await client.request(service: "echo", body: [[1]], timeout: .milliseconds(300))
                } catch let error as MajordomoError {
                    #expect(error.code == .deadlineExceeded)
                }
                #expect(ContinuousClock.now - started < .seconds(5))
            }
        }
    }

    @Test("with no broker the caller gets `unavailable` by its deadline")
    func brokerDown() async throws {
        let client = Harness.client("tcp://127.0.0.1:1")
        try await Harness.withRunning([client]) {
            let started = ContinuousClock.now
            do {
                _ = try await client.request(service: "echo", body: [[1]], timeout: .milliseconds(300))
                Issue.record("must fail")
            } catch let error as MajordomoError {
                #expect(error.code == .unavailable)
                #expect(error.message.contains("not reachable"))
            }
            #expect(ContinuousClock.now - started < .seconds(5))
        }
    }

    @Test(
        "a request for a service with no worker waits, then is served when a worker appears")
    func servedWhenWorkerAppears() async throws {
        try await Harness.withBroker { broker in
            let client = Harness.client(broker.endpoint)
            try await Harness.withRunning([client]) {
                // The broker holds a queued body as the frames it received: a large one, an empty
                // one and a small one must come out as they went in.
                let body: Message = [Array("hi".utf8), [], Array(repeating: 0x5a, count: 4096)]
                let reply = Task {
                    try await client.request(service: "late", body: body, timeout: .seconds(10))
                }
                try await Task.sleep(for: .milliseconds(300))
                let worker = Harness.echoWorker(broker.endpoint, service: "late", concurrency: 1)
                let served = try await Harness.withRunning([worker]) { try await reply.value }
                #expect(served == body)
            }
        }
    }

    @Test(
        "a request for a service that never gets a worker is answered `unavailable` by the broker")
    func queueExpiry() async throws {
        try await Harness.withBroker(Harness.configuration(requestTimeoutMs: 300)) { broker in
            let client = Harness.client(broker.endpoint)
            try await Harness.withRunning([client]) {
                let started = ContinuousClock.now
                let reply = try await client.request(service: "ghost", body: [[1]], timeout: .seconds(10))
                #expect(text([reply[0]]) == ["unavailable"])
                #expect(text([reply[1]])[0].contains("\"code\":\"unavailable\""))
                #expect(ContinuousClock.now - started < .seconds(5))
            }
        }
    }

    @Test(
        "a worker that dies holding a request: its client hears `unavailable` before its deadline")
    func silentWorker() async throws {
        try await Harness.withBroker { broker in
            let context = Context()
            let client = Harness.client(broker.endpoint)
            try await Harness.withRunning([client]) {
                let reply = Task { try await client.request(service: "frozen", body: [[1]], timeout: .seconds(30)) }
                // A raw worker that takes one request and then goes silent, like a frozen process.
                let taken = try await IOThread.run(name: "silent-worker") {
                    let socket = try context.socket(.dealer)
                    defer { socket.close() }
                    try socket.connect(broker.endpoint)
                    try socket.send(MDP.workerCommand(.ready, [Array("frozen".utf8)]))
                    var poller = Poller()
                    poller.add(socket)
                    let giveUp = Date().addingTimeInterval(20)
                    // Alive (heartbeating) until it has the request in hand, then silent.
                    while Date() < giveUp {
                        try socket.send(MDP.workerCommand(.heartbeat))
                        try poller.poll(timeoutMs: 50)
                        while let message = try socket.receive(dontWait: true) {
                            if message.count > 2 && message[2] == MDP.Command.request.frame { return true }
                        }
                    }
                    return false
                }
                let started = ContinuousClock.now
                #expect(taken)
                let answer = try await reply.value
                #expect(text([answer[0]]) == ["unavailable"])
                #expect(ContinuousClock.now - started < .seconds(10))
            }
        }
    }

    @Test(
        "after a broker restart the same worker and the same client carry on by themselves")
    func brokerRestart() async throws {
        let first = try Broker(configuration: Harness.configuration(), logger: Harness.logger)
        let endpoint = first.endpoint
        let worker = Harness.echoWorker(endpoint, concurrency: 2)
        let client = Harness.client(endpoint)
        try await Harness.withRunning([worker, client]) {
            let firstRun = Task { try await first.run() }
            let answer = try await client.request(service: "echo", body: [[1]], timeout: .seconds(10))
            #expect(answer == [[1]])
            first.stop()
            try await firstRun.value
            // While the broker is down the same client says so, by the deadline.
            try await Harness.eventually("the client saw the broker go") { !client.isConnected }
            do {
                _ = try await client.request(service: "echo", body: [[9]], timeout: .milliseconds(300))
                Issue.record("no broker: must fail")
            } catch let error as MajordomoError {
                #expect(error.code == .unavailable)
            }
            try await Harness.withBroker(Harness.configuration(endpoint: endpoint)) { _ in
                // The same client and the same worker find the new broker by themselves.
                let again = try await client.request(service: "echo", body: [[2]], timeout: .seconds(10))
                #expect(again == [[2]])
            }
        }
    }

    @Test(
        "draining a worker finishes the request in hand, then the service is gone",
        arguments: MajordomoWorker.HandlerStart.allCases)
    func drain(start: MajordomoWorker.HandlerStart) async throws {
        try await Harness.withBroker { broker in
            let release = Mutex(false)
            let worker = Harness.echoWorker(
                broker.endpoint, service: "drain", concurrency: 2, start: start
            ) { body in
                while !release.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(10)) }
                return body
            }
            let client = Harness.client(broker.endpoint)
            try await Harness.withRunning([client]) {
                let workerRun = Task { try await worker.run() }
                async let reply = client.request(service: "drain", body: [[7]], timeout: .seconds(10))
                try await Harness.eventually("request taken") { broker.statistics.requests == 1 }
                try await Task.sleep(for: .milliseconds(100))
                worker.drain()
                try await Task.sleep(for: .milliseconds(100))
                release.withLock { $0 = true }
                let answer = try await reply
                #expect(answer == [[7]])
                try await workerRun.value
                #expect(try await client.isServed("drain") == false)
            }
        }
    }

    @Test("a worker that leaves with DISCONNECT holding a request: the next worker gets the request whole")
    func disconnectHandsRequestOnWhole() async throws {
        try await Harness.withBroker { broker in
            let context = Context()
            // The broker passes bodies on as the frames it received; a request it hands on a
            // second time must still have all of them.
            let body: Message = [Array(repeating: 0x42, count: 4096), Array("x".utf8), []]
            let client = Harness.client(broker.endpoint)
            try await Harness.withRunning([client]) {
                let endpoint = broker.endpoint
                let leaver = Task {
                    try await IOThread.run(name: "leaver") { () throws -> Message? in
                        let socket = try context.socket(.dealer)
                        defer { socket.close() }
                        try socket.connect(endpoint)
                        try socket.send(MDP.workerCommand(.ready, [Array("relay".utf8)]))
                        var poller = Poller()
                        poller.add(socket)
                        let deadline = Date().addingTimeInterval(10)
                        while Date() < deadline {
                            try poller.poll(timeoutMs: 50)
                            while let message = try socket.receive(dontWait: true) {
                                if message.count >= 6 && message[2] == MDP.Command.request.frame {
                                    try socket.send(MDP.workerCommand(.disconnect))
                                    return Array(message[5...])
                                }
                            }
                            try socket.send(MDP.workerCommand(.heartbeat))
                        }
                        return nil
                    }
                }
                try await Harness.eventually("the leaving worker is registered") {
                    try await client.isServed("relay")
                }
                let reply = Task { try await client.request(service: "relay", body: body, timeout: .seconds(10)) }
                // Compared as booleans: a failure prints the frame sizes, not 4 KiB of bytes.
                let seen = try await leaver.value
                let firstWhole = seen == body
                #expect(firstWhole, "the first worker got the request whole: \(seen?.map(\.count) ?? [])")
                let worker = Harness.echoWorker(broker.endpoint, service: "relay", concurrency: 1)
                let served = try await Harness.withRunning([worker]) { try await reply.value }
                let secondWhole = served == body
                #expect(secondWhole, "and so did the second, after the first left: \(served.map(\.count))")
            }
        }
    }

    @Test("thousands of random frames do not hurt the broker; it still serves")
    func junk() async throws {
        try await Harness.withBroker { broker in
            let context = Context()
            try await IOThread.run(name: "junk") {
                var generator = SystemRandomNumberGenerator()
                let headers: [Frame] = [[], MDP.clientHeader, MDP.workerHeader, [0x01], [0x02], [0x03], [0x04], [0x05]]
                for _ in 0..<4 {
                    let socket = try context.socket(.dealer)
                    try socket.connect(broker.endpoint)
                    for _ in 0..<1500 {
                        let count = Int.random(in: 0...8, using: &generator)
                        var message: Message = (0..<count).map { _ in
                            Bool.random(using: &generator)
                                ? headers.randomElement(using: &generator)!
                                : (0..<Int.random(in: 0...40, using: &generator)).map { _ in
                                    UInt8.random(in: 0...255, using: &generator)
                                }
                        }
                        if message.isEmpty { message = [[]] }
                        try socket.send(message)
                    }
                    socket.close()
                }
            }
            let worker = Harness.echoWorker(broker.endpoint)
            let client = Harness.client(broker.endpoint)
            try await Harness.withRunning([client, worker]) {
                let answer = try await client.request(
                    service: "echo", body: [Array("still here".utf8)], timeout: .seconds(10))
                #expect(answer == [Array("still here".utf8)])
            }
            #expect(broker.statistics.malformed > 0)
        }
    }
}

/// The name of the thread the caller runs on (a synchronous function, so that async code may ask).
/// The calling thread's name as the kernel has it (what `top -H` shows), which both worker
/// transports set for their I/O thread.
func currentThreadName() -> String {
    let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
    return name.trimmingCharacters(in: .newlines)
}

/// The worker's connection: frame sizes, a broker that comes late, stuck handlers, endpoints.
@Suite("Majordomo: the worker's connection")
struct ZMTPWorkerTests {
    @Test("a worker serves requests and replies of every frame size class")
    func frameSizes() async throws {
        try await Harness.withBroker { broker in
            let worker = Harness.echoWorker(broker.endpoint, concurrency: 8)
            let client = Harness.client(broker.endpoint)
            try await Harness.withRunning([client, worker]) {
                for size in [0, 1, 255, 256, 70_000] {
                    let body: [Frame] = [Array(repeating: UInt8(size % 251), count: size), [], Array("end".utf8)]
                    let reply = try await client.request(service: "echo", body: body, timeout: .seconds(10))
                    #expect(reply.map(\.count) == body.map(\.count) && reply == body)
                }
                #expect(try await client.isServed("echo"))
                let heard = try #require(worker.millisecondsSinceBrokerSpoke)
                #expect(heard < worker.brokerExpiryMs)
            }
        }
    }

    @Test("a zmtp worker started before its broker connects once the broker is up, and says so to the broker's heartbeat checks")
    func brokerComesLate() async throws {
        // A port nobody listens on yet: the broker takes it over afterwards.
        let probe = try Broker(configuration: Harness.configuration(), logger: Harness.logger)
        let endpoint = probe.endpoint
        let probeRun = Task { try await probe.run() }
        try await Task.sleep(for: .milliseconds(50))
        probe.stop()
        try await probeRun.value
        let worker = Harness.echoWorker(endpoint, concurrency: 2)
        try await Harness.withRunning([worker]) {
            try await Task.sleep(for: .milliseconds(300))
            #expect(worker.millisecondsSinceBrokerSpoke == nil)
            try await Harness.withBroker(Harness.configuration(endpoint: endpoint)) { broker in
                let client = Harness.client(broker.endpoint)
                try await Harness.withRunning([client]) {
                    let reply = try await client.request(service: "echo", body: [[5]], timeout: .seconds(10))
                    #expect(reply == [[5]])
                }
            }
        }
    }

    @Test(
        "a handler that never answers is reported as stuck once past the limit; the others are served meanwhile",
        .timeLimit(.minutes(1)))
    func stuckHandler() async throws {
        try await Harness.withBroker(Harness.configuration()) { broker in
            let (reports, report) = AsyncStream.makeStream(of: (String, Int64).self)
            let watch = HandlerWatch(limitMs: 300) { report.yield(($0.operation, $0.runningMs)) }
            let worker = MajordomoWorker(
                endpoint: broker.endpoint, service: "echo", concurrency: 4,
                heartbeat: HeartbeatSettings(intervalMs: 100, liveness: 3), drainTimeoutMs: 2000,
                logger: Harness.logger,
                handler: watch.watching { body in
                    // Waits as a query written into a closed connection does: until cancelled.
                    if body.first == Array("wedged".utf8) { try? await Task.sleep(for: .seconds(3600)) }
                    return body
                })
            let client = Harness.client(broker.endpoint)
            let watching = Task { try await watch.run() }
            defer { watching.cancel() }
            try await Harness.withRunning([client, worker]) {
                let stuck = Task { try? await client.request(service: "echo", body: [Array("wedged".utf8)], timeout: .seconds(30)) }
                defer { stuck.cancel() }
                for index in 0..<20 {
                    let reply = try await client.request(service: "echo", body: [[UInt8(index)]], timeout: .seconds(10))
                    #expect(reply == [[UInt8(index)]])
                }
                var iterator = reports.makeAsyncIterator()
                let stall = await iterator.next()
                #expect(stall?.0 == "wedged")
                #expect((stall?.1 ?? 0) >= 300)
            }
        }
    }

    @Test(
        "a handler that finishes after its worker stopped (the drain timed out) has its reply dropped and counted",
        .timeLimit(.minutes(1)), arguments: MajordomoWorker.HandlerStart.allCases)
    func replyAfterStop(start: MajordomoWorker.HandlerStart) async throws {
        try await Harness.withBroker { broker in
            let release = Mutex(false)
            let started = Atomic<Int>(0)
            let finished = Atomic<Int>(0)
            let worker = MajordomoWorker(
                endpoint: broker.endpoint, service: "late", concurrency: 2, handlerStart: start,
                heartbeat: HeartbeatSettings(intervalMs: 100, liveness: 3), drainTimeoutMs: 200,
                logger: Harness.logger
            ) { body in
                started.add(1, ordering: .relaxed)
                while !release.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(10)) }
                finished.add(1, ordering: .relaxed)
                return body
            }
            let client = Harness.client(broker.endpoint)
            try await Harness.withRunning([client]) {
                let workerRun = Task { try await worker.run() }
                let reply = Task { try? await client.request(service: "late", body: [[7]], timeout: .seconds(2)) }
                // The broker counts the request before the worker has it: wait for the handler.
                try await Harness.eventually("request taken") { started.load(ordering: .relaxed) == 1 }
                worker.drain()
                // The drain times out with the request in hand: run() returns and the worker's
                // event loop shuts down while the handler still waits. (Before the fix, the late
                // reply scheduled a wake-up on that loop: SwiftNIO's "Cannot schedule tasks on an
                // EventLoop that has already shut down", to become a crash.)
                try await workerRun.value
                #expect(worker.abandonedReplies == 0)
                release.withLock { $0 = true }
                try await Harness.eventually("the late reply is dropped") { worker.abandonedReplies == 1 }
                #expect(finished.load(ordering: .relaxed) == 1)
                #expect(await reply.value == nil)
            }
        }
    }

    @Test("a worker refuses an endpoint that is not tcp://HOST:PORT")
    func endpoints() async throws {
        let worker = Harness.echoWorker("inproc://nowhere")
        await #expect(throws: MajordomoError.self) { try await worker.run() }
    }
}
