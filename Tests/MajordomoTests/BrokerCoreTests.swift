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

    /// The REPLY to `request` (a REQUEST the broker sent, identity first) from the worker it went to.
    func reply(to request: Message, _ body: String) -> Message {
        [request[0]] + MDP.workerCommand(.reply, [request[4], []]) + [Array(body.utf8)]
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

    @Test("a worker's slot is reused after it leaves; identities that differ in length or past 16 bytes stay apart")
    func workerSlotsAndIdentities() {
        var core = core()
        var out: [Message] = []
        // libzmq's own ids are 5 bytes; peers may pick longer ones. "a" and "a\0" differ only in
        // length; the two long ids share their first 16 bytes.
        let short: Frame = [0x61]
        let padded: Frame = [0x61, 0]
        let long1 = Frame(repeating: 7, count: 17) + [1]
        let long2 = Frame(repeating: 7, count: 17) + [2]
        for identity in [short, padded, long1, long2] { core.handle(ready(identity, "echo"), now: 0, into: &out) }
        #expect(core.workerCount(for: "echo") == 4)
        core.handle([padded] + MDP.workerCommand(.disconnect), now: 0, into: &out)
        core.handle([long1] + MDP.workerCommand(.disconnect), now: 0, into: &out)
        #expect(core.workerCount(for: "echo") == 2)
        core.handle([long1] + MDP.workerCommand(.heartbeat), now: 0, into: &out)
        #expect(out.last == [long1] + MDP.workerCommand(.disconnect), "a worker that left is unknown")
        // A new worker takes a freed slot; the line is short, then long2, then the newcomer.
        core.handle(ready(worker1, "echo"), now: 1, into: &out)
        var served: [Frame] = []
        for body in ["a", "b", "c"] {
            core.handle(request("echo", body), now: 1, into: &out)
            served.append(out.last![0])
        }
        #expect(served == [short, long2, worker1])
        // Each answers its own request; the replies reach the client in that order.
        let requests = out.suffix(3)
        for (request, answer) in zip(requests, ["A", "B", "C"]) {
            core.handle(reply(to: request, answer), now: 2, into: &out)
            #expect(out.last == [client, [], MDP.clientHeader, Array("echo".utf8), Array(answer.utf8)])
        }
        #expect(core.statistics.replies == 3)
        #expect(core.statistics.disconnects == 1)
    }

    @Test("requests alternate between services and MMI without mixing them up")
    func servicesAlternate() {
        var core = core()
        var out: [Message] = []
        core.handle(ready(worker1, "echo"), now: 0, into: &out)
        core.handle(ready(worker2, "time"), now: 0, into: &out)
        for (service, worker) in [("echo", worker1), ("time", worker2), ("time", worker2), ("echo", worker1)] {
            core.handle(request(service, "x"), now: 0, into: &out)
            #expect(out.last?.first == worker, "\(service) goes to its own worker")
            let sent = out.last!
            core.handle(reply(to: sent, service), now: 0, into: &out)
            #expect(out.last == [client, [], MDP.clientHeader, Array(service.utf8), Array(service.utf8)])
            core.handle(request("mmi.service", service), now: 0, into: &out)
            #expect(out.last?.last == Array("200".utf8))
        }
        core.handle(request("mmi.service", "nothing"), now: 0, into: &out)
        #expect(out.last?.last == Array("404".utf8))
    }

    /// What the ROUTER writes for `message`: the routing id, then the head frames as
    /// ``Outgoing/forEachHeadFrame(_:)`` gives them, then the body.
    func written(_ message: Outgoing) -> Message {
        var frames: Message = [message.withRoutingID { Array($0) }]
        message.forEachHeadFrame { frames.append(Array($0)) }
        #expect(frames.count == message.headFramesAfterRoutingID + 1)
        message.body.forEachFrame { frames.append(Array($0)) }
        return frames
    }

    @Test("messages received packed (as the ROUTER gives them): a deep envelope comes back whole, heads written in place")
    func packedMessages() throws {
        var core = core()
        var out: [Outgoing] = []
        core.handle(PackedMessage(ready(worker1, "echo")), now: 0, into: &out)
        let tags: [Frame] = [Array("tag-1".utf8), Array(repeating: 9, count: 40)]
        let asked = PackedMessage([client] + tags + [[], MDP.clientHeader, Array("echo".utf8), [1], [2, 3]])
        core.handle(asked, now: 0, into: &out)
        let request = try #require(out.last)
        guard case .request(let worker, let number) = request.kind else {
            Issue.record("expected a REQUEST, got \(request.head)")
            return
        }
        #expect(worker == worker1)
        #expect(
            written(request)
                == [worker1, [], MDP.workerHeader, MDP.Command.request.frame, BrokerCore.addressFrame(number), [], [1], [2, 3]])
        #expect(written(request) == request.frames)
        // The worker answers; the reply carries the client's whole envelope back.
        let answer = PackedMessage([worker1] + MDP.workerCommand(.reply, [BrokerCore.addressFrame(number), []]) + [[4]])
        core.handle(answer, now: 1, into: &out)
        let reply = try #require(out.last)
        let expected: Message = [client] + tags + [[], MDP.clientHeader, Array("echo".utf8), [4]]
        #expect(written(reply) == expected)
        #expect(reply.frames == expected && reply.routingID == client)
        // An expired request is answered through the same envelope.
        core.handle(asked, now: 2, into: &out)
        core.handle(PackedMessage([worker1] + MDP.workerCommand(.disconnect)), now: 2, into: &out)
        core.tick(now: 5_000, into: &out)
        let expired = try #require(out.last)
        #expect(Array(written(expired).prefix(6)) == [client] + tags + [[], MDP.clientHeader, Array("echo".utf8)])
        #expect(written(expired)[6] == Array("unavailable".utf8))
    }
}
