import Testing
import ZeroMQ

@testable import Majordomo

/// The broker's rules without sockets: messages in, messages out, time passed in.
@Suite("Broker rules (RFC 7 / RFC 8)")
struct BrokerCoreTests {
    let worker1: Frame = Array("w1".utf8)
    let worker2: Frame = Array("w2".utf8)
    let client: Frame = Array("c1".utf8)

    func core(requestTimeoutMs: Int64 = 1000) -> BrokerCore {
        BrokerCore(
            configuration: BrokerConfiguration(
                heartbeat: HeartbeatSettings(intervalMs: 100, liveness: 3), requestTimeoutMs: requestTimeoutMs),
            now: 0)
    }

    func ready(_ worker: Frame, _ service: String) -> Message {
        [worker] + MDP.workerCommand(.ready, [Array(service.utf8)])
    }

    func request(_ service: String, _ body: String, from client: Frame? = nil) -> Message {
        [client ?? self.client, [], MDP.clientHeader, Array(service.utf8), Array(body.utf8)]
    }

    @Test("mmi.service answers 200 while a worker serves the name, 404 otherwise; other mmi.* answer 501")
    func management() {
        var core = core()
        var out: [Message] = []
        core.handle(request("mmi.service", "echo"), now: 0, into: &out)
        #expect(out.last?.last == Array("404".utf8))
        core.handle(ready(worker1, "echo"), now: 0, into: &out)
        core.handle(request("mmi.service", "echo"), now: 0, into: &out)
        #expect(out.last == [client, [], MDP.clientHeader, Array("mmi.service".utf8), Array("200".utf8)])
        core.handle(request("mmi.nothing", "x"), now: 0, into: &out)
        #expect(out.last?.last == Array("501".utf8))
        core.handle([worker1] + MDP.workerCommand(.disconnect), now: 0, into: &out)
        core.handle(request("mmi.service", "echo"), now: 0, into: &out)
        #expect(out.last?.last == Array("404".utf8))
    }

    @Test("requests go to the least recently used worker")
    func leastRecentlyUsed() {
        var core = core()
        var out: [Message] = []
        core.handle(ready(worker1, "echo"), now: 0, into: &out)
        core.handle(ready(worker2, "echo"), now: 0, into: &out)
        core.handle(request("echo", "a"), now: 0, into: &out)
        #expect(out.last?.first == worker1)
        core.handle(request("echo", "b"), now: 0, into: &out)
        #expect(out.last?.first == worker2)
        // w2 answers first, so w1 is now the least recently used.
        let toW2 = out.last!
        core.handle([worker2] + MDP.workerCommand(.reply, [toW2[4], []]) + [Array("B".utf8)], now: 1, into: &out)
        #expect(out.last == [client, [], MDP.clientHeader, Array("echo".utf8), Array("B".utf8)])
        let toW1 = out[out.count - 3]
        core.handle([worker1] + MDP.workerCommand(.reply, [toW1[4], []]) + [Array("A".utf8)], now: 2, into: &out)
        core.handle(request("echo", "c"), now: 3, into: &out)
        #expect(out.last?.first == worker2, "w2 has waited longest")
    }

    @Test("a valid but unexpected command gets DISCONNECT")
    func unexpectedCommands() {
        var core = core()
        var out: [Message] = []
        let disconnect = [worker1] + MDP.workerCommand(.disconnect)
        core.handle([worker1] + MDP.workerCommand(.heartbeat), now: 0, into: &out)
        #expect(out.last == disconnect, "HEARTBEAT before READY")
        core.handle([worker1] + MDP.workerCommand(.reply, [[1], []]) + [[2]], now: 0, into: &out)
        #expect(out.last == disconnect, "REPLY before READY")
        core.handle(ready(worker1, "echo"), now: 0, into: &out)
        core.handle(ready(worker1, "echo"), now: 0, into: &out)
        #expect(out.last == disconnect, "a second READY")
        #expect(core.workerCount(for: "echo") == 0, "and the worker is forgotten")
        core.handle(ready(worker2, "mmi.service"), now: 0, into: &out)
        #expect(out.last == [worker2] + MDP.workerCommand(.disconnect), "mmi. is the broker's namespace")
        core.handle(ready(worker2, "echo"), now: 0, into: &out)
        core.handle([worker2] + MDP.workerCommand(.reply, [[9], []]) + [[2]], now: 0, into: &out)
        #expect(out.last == [worker2] + MDP.workerCommand(.disconnect), "REPLY with no request in hand")
    }

    @Test("malformed messages are dropped without a reply")
    func malformed() {
        var core = core()
        var out: [Message] = []
        let junk: [Message] = [
            [client], [client, []], [client, [], Array("MDPC02".utf8), [1]], [client, [], MDP.clientHeader],
            [client, [], MDP.clientHeader, Array("echo".utf8)], [worker1, [], MDP.workerHeader],
            [worker1, [], MDP.workerHeader, [0x09]], [worker1, [], MDP.workerHeader, [0x01, 0x01]],
            [worker1, [], MDP.workerHeader, [0x01]], [client, Array("x".utf8), MDP.clientHeader],
        ]
        for message in junk { core.handle(message, now: 0, into: &out) }
        #expect(out.isEmpty)
        #expect(core.statistics.malformed == junk.count)
    }

    @Test("a request waits for a worker, and expires with `unavailable` when none comes")
    func queueing() {
        var core = core(requestTimeoutMs: 500)
        var out: [Message] = []
        core.handle(request("late", "x"), now: 0, into: &out)
        #expect(out.isEmpty)
        core.handle(ready(worker1, "late"), now: 100, into: &out)
        #expect(out.last?.first == worker1, "served as soon as the worker appears")
        out.removeAll()
        let other: Frame = Array("c2".utf8)
        core.handle(request("never", "x", from: other), now: 0, into: &out)
        core.tick(now: 499, into: &out)
        #expect(!out.contains { $0.first == other })
        core.tick(now: 500, into: &out)
        let reply = out.first { $0.first == other }
        #expect(reply.map { Array($0[4...]).first } == Array("unavailable".utf8))
        #expect(core.statistics.expired == 1)
        #expect(reply.map { String(decoding: $0[5], as: UTF8.self) }?.contains("no 'never' worker") == true)
    }

    @Test("a silent worker expires; the client whose request it held gets `unavailable`")
    func workerExpiry() {
        var core = core()
        var out: [Message] = []
        core.handle(ready(worker1, "echo"), now: 0, into: &out)
        core.handle(request("echo", "x"), now: 0, into: &out)
        core.tick(now: 200, into: &out)
        #expect(core.workerCount(for: "echo") == 1)
        core.tick(now: 300, into: &out)
        #expect(core.workerCount(for: "echo") == 0)
        let reply = out.first { $0.first == client }
        #expect(reply?[4] == Array("unavailable".utf8))
        #expect(core.statistics.abandoned == 1)
    }

    @Test("idle workers get heartbeats every interval")
    func heartbeats() {
        var core = core()
        var out: [Message] = []
        core.handle(ready(worker1, "echo"), now: 0, into: &out)
        core.tick(now: 50, into: &out)
        #expect(out.isEmpty)
        core.tick(now: 100, into: &out)
        #expect(out == [[worker1] + MDP.workerCommand(.heartbeat)])
    }

    @Test("a worker that leaves with DISCONNECT before starting its request gives it back to the queue")
    func requeueOnDisconnect() {
        var core = core()
        var out: [Message] = []
        core.handle(ready(worker1, "echo"), now: 0, into: &out)
        core.handle(request("echo", "x"), now: 0, into: &out)
        core.handle([worker1] + MDP.workerCommand(.disconnect), now: 1, into: &out)
        #expect(core.queuedCount(for: "echo") == 1)
        core.handle(ready(worker2, "echo"), now: 2, into: &out)
        #expect(out.last?.first == worker2)
        #expect(out.last?.last == Array("x".utf8))
    }

    @Test("a vanished worker: an undelivered REQUEST moves on, a request already in hand is answered `unavailable`")
    func unreachableWorker() {
        var core = core()
        var out: [Message] = []
        core.handle(ready(worker1, "echo"), now: 0, into: &out)
        core.handle(request("echo", "x"), now: 0, into: &out)
        let undeliveredRequest = out.last!
        core.workerUnreachable(worker1, undelivered: undeliveredRequest, now: 1, into: &out)
        #expect(core.queuedCount(for: "echo") == 1, "the worker never saw it")
        core.handle(ready(worker2, "echo"), now: 2, into: &out)
        #expect(out.last?.first == worker2)
        core.workerUnreachable(worker2, undelivered: [worker2] + MDP.workerCommand(.heartbeat), now: 3, into: &out)
        #expect(out.last?.first == client)
        #expect(out.last?[4] == Array("unavailable".utf8), "it may have acted on it: no second run")
        #expect(core.queuedCount(for: "echo") == 0)
    }

    @Test("a READY with a credit frame lets one worker connection hold that many requests (extension)")
    func credit() {
        var core = core()
        var out: [Message] = []
        core.handle([worker1] + MDP.workerCommand(.ready, [Array("echo".utf8), Array("3".utf8)]), now: 0, into: &out)
        core.handle([worker2] + MDP.workerCommand(.ready, [Array("echo".utf8)]), now: 0, into: &out)
        for body in ["a", "b", "c", "d", "e"] { core.handle(request("echo", body), now: 0, into: &out) }
        let toW1 = out.filter { $0.first == worker1 }
        let toW2 = out.filter { $0.first == worker2 }
        #expect(toW1.count == 3, "credit 3")
        #expect(toW2.count == 1, "a plain RFC 7 worker holds one")
        #expect(core.queuedCount(for: "echo") == 1)
        // A reply frees credit, and the waiting request goes out at once.
        core.handle([worker1] + MDP.workerCommand(.reply, [toW1[1][4], []]) + [Array("B".utf8)], now: 1, into: &out)
        #expect(out.last?.first == worker1)
        #expect(core.queuedCount(for: "echo") == 0)
    }

    @Test("a credit frame that is not a number from 1 to 1024 makes the READY malformed")
    func badCredit() {
        var core = core()
        var out: [Message] = []
        for credit in ["0", "abc", "5000", ""] {
            core.handle(
                [worker1] + MDP.workerCommand(.ready, [Array("echo".utf8), Array(credit.utf8)]), now: 0, into: &out)
        }
        #expect(core.workerCount(for: "echo") == 0)
        #expect(out.isEmpty)
    }
}
