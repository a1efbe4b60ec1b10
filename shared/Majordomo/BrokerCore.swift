import Contract
import ZeroMQ

/// The Majordomo broker's rules (RFC 7 and RFC 8) with no sockets and no clock.
///
/// Input is what the ROUTER socket received (identity first) and the time in monotonic
/// milliseconds; output is the messages to send on the ROUTER socket (identity first). The
/// ``Broker`` feeds it from real sockets; tests can drive it directly.
public struct BrokerCore {
    struct Request {
        let id: UInt64
        let envelope: [Frame]
        let service: Frame
        let body: [Frame]
        let expiresAt: Int64
    }

    /// A registered worker connection. A class, so that the requests it holds are updated in
    /// place: a copy of a struct held while its dictionary changes would copy the dictionary.
    final class Worker {
        let identity: Frame
        let service: String
        var expiresAt: Int64
        /// Requests it may hold at once: 1 for a plain RFC 7 worker, more when its READY said so.
        let credit: Int
        /// The requests it holds, by the number in their client-address frame.
        var inHand: [UInt64: Request] = [:]
        /// Whether it is in its service's waiting line.
        var isWaiting: Bool

        init(identity: Frame, service: String, expiresAt: Int64, credit: Int, isWaiting: Bool) {
            self.identity = identity
            self.service = service
            self.expiresAt = expiresAt
            self.credit = credit
            self.isWaiting = isWaiting
            inHand.reserveCapacity(credit)
        }

        var hasCredit: Bool { inHand.count < credit }
    }

    final class Service {
        let name: Frame
        var requests = FIFO<Request>()
        var waiting = FIFO<Frame>()
        var workerCount = 0
        init(name: Frame) { self.name = name }
    }

    /// How deep a client's return envelope may be (its identity plus its own tags).
    static let maxEnvelopeFrames = 8
    /// The most requests one worker connection may ask to hold at once.
    public static let maxCredit = 1024

    let configuration: BrokerConfiguration
    private var workers: [Frame: Worker] = [:]
    private var services: [String: Service] = [:]
    private var nextRequestID: UInt64 = 1
    private var nextHeartbeatAt: Int64
    /// What has happened so far.
    public private(set) var statistics = BrokerStatistics()

    /// A broker state with no workers and no requests.
    public init(configuration: BrokerConfiguration, now: Int64) {
        self.configuration = configuration
        self.nextHeartbeatAt = now + configuration.heartbeat.intervalMs
    }

    /// How many live workers serve `service` (idle or busy).
    public func workerCount(for service: String) -> Int { services[service]?.workerCount ?? 0 }

    /// How many requests wait for a worker of `service`.
    public func queuedCount(for service: String) -> Int { services[service]?.requests.count ?? 0 }

    /// When ``tick(now:into:)`` next has work to do.
    public func nextWakeAt() -> Int64 {
        var wake = nextHeartbeatAt
        for service in services.values {
            if let first = service.requests.first { wake = min(wake, first.expiresAt) }
        }
        return wake
    }

    // MARK: - Input

    /// Handles one message from the ROUTER socket.
    public mutating func handle(_ message: Message, now: Int64, into out: inout [Message]) {
        guard message.count >= 3,
            let delimiter = message.indices.dropFirst().first(where: { message[$0].isEmpty }),
            delimiter <= Self.maxEnvelopeFrames, delimiter + 1 < message.count
        else { return malformed() }
        let header = message[delimiter + 1]
        if header == MDP.clientHeader {
            handleClient(
                envelope: message[..<delimiter], frames: message[(delimiter + 2)...], now: now, into: &out)
        } else if header == MDP.workerHeader, delimiter == 1 {
            handleWorker(identity: message[0], frames: message[3...], now: now, into: &out)
        } else {
            malformed()
        }
    }

    private mutating func malformed() { statistics.malformed += 1 }

    private mutating func handleClient(
        envelope: ArraySlice<Frame>, frames: ArraySlice<Frame>, now: Int64, into out: inout [Message]
    ) {
        guard frames.count >= 2, let serviceFrame = frames.first, !serviceFrame.isEmpty else { return malformed() }
        let name = String(decoding: serviceFrame, as: UTF8.self)
        let body = frames.dropFirst()
        if name.hasPrefix(MDP.mmiPrefix) {
            out.append(Self.toClient(envelope, service: serviceFrame, management(name, body)))
            return
        }
        let service = self.service(named: name, frame: serviceFrame)
        let request = Request(
            id: nextRequestID, envelope: Array(envelope), service: serviceFrame, body: Array(body),
            expiresAt: now + configuration.requestTimeoutMs)
        nextRequestID &+= 1
        if service.requests.count >= configuration.maxQueuedPerService {
            statistics.expired += 1
            out.append(
                Self.errorReply(
                    to: request, code: "unavailable",
                    message: "service '\(name)' has \(service.requests.count) requests waiting; try again later"))
            return
        }
        statistics.requests += 1
        service.requests.append(request)
        dispatch(service, now: now, into: &out)
    }

    /// RFC 8: `mmi.service` says whether a live worker serves the named service.
    private func management(_ name: String, _ body: ArraySlice<Frame>) -> [Frame] {
        guard name == "mmi.service" else { return [Array("501".utf8)] }
        let asked = String(decoding: body.first ?? [], as: UTF8.self)
        let found = workerCount(for: asked) > 0
        return [Array((found ? "200" : "404").utf8)]
    }

    private mutating func handleWorker(
        identity: Frame, frames: ArraySlice<Frame>, now: Int64, into out: inout [Message]
    ) {
        guard let commandFrame = frames.first, commandFrame.count == 1,
            let command = MDP.Command(rawValue: commandFrame[0])
        else { return invalidFromWorker(identity, now: now, into: &out) }
        let arguments = frames.dropFirst()
        let worker = workers[identity]
        let known = worker != nil
        if let worker, command != .disconnect {
            worker.expiresAt = now + configuration.heartbeat.expiryMs
        }
        switch command {
        case .ready:
            guard (1...2).contains(arguments.count), let serviceFrame = arguments.first, !serviceFrame.isEmpty,
                let credit = Self.credit(arguments.dropFirst().first)
            else {
                return invalidFromWorker(identity, now: now, into: &out)
            }
            let name = String(decoding: serviceFrame, as: UTF8.self)
            if known || name.hasPrefix(MDP.mmiPrefix) {
                return disconnect(identity, now: now, into: &out)
            }
            let service = self.service(named: name, frame: serviceFrame)
            workers[identity] = Worker(
                identity: identity, service: name, expiresAt: now + configuration.heartbeat.expiryMs, credit: credit,
                isWaiting: true)
            service.workerCount += 1
            service.waiting.append(identity)
            dispatch(service, now: now, into: &out)
        case .reply:
            guard known else { return disconnect(identity, now: now, into: &out) }
            guard arguments.count >= 3, arguments[arguments.startIndex + 1].isEmpty else {
                return invalidFromWorker(identity, now: now, into: &out)
            }
            guard let worker, let number = arguments.first.flatMap(Self.requestNumber),
                let request = worker.inHand.removeValue(forKey: number)
            else { return disconnect(identity, now: now, into: &out) }
            statistics.replies += 1
            out.append(Self.toClient(request.envelope[...], service: request.service, arguments.dropFirst(2)))
            if !worker.isWaiting, let service = services[worker.service] {
                worker.isWaiting = true
                service.waiting.append(identity)
                dispatch(service, now: now, into: &out)
            }
        case .heartbeat:
            guard arguments.isEmpty else { return invalidFromWorker(identity, now: now, into: &out) }
            if !known { disconnect(identity, now: now, into: &out) }
        case .disconnect:
            // The worker has said goodbye: send nothing more. A request it held was never
            // started (our workers reply before leaving), so it goes back to the queue.
            if known { removeWorker(identity, requeue: true, now: now, into: &out) }
        case .request:
            disconnect(identity, now: now, into: &out)
        }
    }

    /// A message that does not parse: dropped, and a registered worker that sent it is dropped too.
    private mutating func invalidFromWorker(_ identity: Frame, now: Int64, into out: inout [Message]) {
        malformed()
        if workers[identity] != nil { disconnect(identity, now: now, into: &out) }
    }

    // MARK: - Time

    /// Heartbeats workers, expires silent workers and requests that waited too long.
    public mutating func tick(now: Int64, into out: inout [Message]) {
        for service in services.values {
            while let first = service.requests.first, first.expiresAt <= now {
                _ = service.requests.popFirst()
                expire(first, into: &out)
            }
        }
        guard now >= nextHeartbeatAt else { return }
        nextHeartbeatAt = now + configuration.heartbeat.intervalMs
        let dead = workers.values.filter { $0.expiresAt <= now }.map(\.identity)
        for identity in dead {
            statistics.expiredWorkers += 1
            removeWorker(identity, requeue: false, now: now, into: &out)
        }
        for identity in workers.keys {
            out.append([identity] + MDP.workerCommand(.heartbeat))
        }
    }

    /// The ROUTER could not reach a worker (its connection is gone): forget it.
    ///
    /// If the undeliverable message was the REQUEST itself, the worker never saw it and another
    /// worker gets it. Otherwise the worker had the request in hand and may have acted on it, so
    /// the client is told `unavailable` rather than having it run twice.
    public mutating func workerUnreachable(
        _ identity: Frame, undelivered: Message, now: Int64, into out: inout [Message]
    ) {
        if undelivered.count > 4, undelivered[3] == MDP.Command.request.frame,
            let number = Self.requestNumber(undelivered[4]), let worker = workers[identity],
            let request = worker.inHand.removeValue(forKey: number), let service = services[worker.service]
        {
            service.requests.prepend(request)
        }
        removeWorker(identity, requeue: false, now: now, into: &out)
    }

    // MARK: - Workers and queues

    private mutating func service(named name: String, frame: Frame) -> Service {
        if let service = services[name] { return service }
        let service = Service(name: frame)
        services[name] = service
        return service
    }

    /// Hands queued requests to waiting workers, least recently used first. A worker with credit
    /// left after taking one goes to the back of the line, so load spreads over workers.
    private mutating func dispatch(_ service: Service, now: Int64, into out: inout [Message]) {
        while !service.waiting.isEmpty, let request = service.requests.popFirst() {
            if request.expiresAt <= now {
                expire(request, into: &out)
                continue
            }
            guard let identity = service.waiting.popFirst() else { break }
            guard let worker = workers[identity] else {
                service.requests.prepend(request)
                continue
            }
            worker.inHand[request.id] = request
            if worker.hasCredit {
                service.waiting.append(identity)
            } else {
                worker.isWaiting = false
            }
            var message: Message = []
            message.reserveCapacity(6 + request.body.count)
            message.append(identity)
            message.append([])
            message.append(MDP.workerHeader)
            message.append(MDP.Command.request.frame)
            message.append(Self.addressFrame(request.id))
            message.append([])
            message.append(contentsOf: request.body)
            out.append(message)
        }
    }

    private mutating func disconnect(_ identity: Frame, now: Int64, into out: inout [Message]) {
        statistics.disconnects += 1
        out.append([identity] + MDP.workerCommand(.disconnect))
        if workers[identity] != nil { removeWorker(identity, requeue: false, now: now, into: &out) }
    }

    private mutating func removeWorker(_ identity: Frame, requeue: Bool, now: Int64, into out: inout [Message]) {
        guard let worker = workers.removeValue(forKey: identity), let service = services[worker.service] else { return }
        service.workerCount -= 1
        if worker.isWaiting { service.waiting.removeAll { $0 == identity } }
        let held = worker.inHand.values.sorted { $0.id < $1.id }
        if requeue {
            for request in held.reversed() { service.requests.prepend(request) }
        } else {
            for request in held {
                statistics.abandoned += 1
                out.append(
                    Self.errorReply(
                        to: request, code: "unavailable",
                        message: "the '\(worker.service)' worker handling this request stopped responding"))
            }
        }
        dispatch(service, now: now, into: &out)
    }

    private mutating func expire(_ request: Request, into out: inout [Message]) {
        statistics.expired += 1
        let name = String(decoding: request.service, as: UTF8.self)
        out.append(
            Self.errorReply(
                to: request, code: "unavailable",
                message: "no '\(name)' worker took the request within \(configuration.requestTimeoutMs) ms"))
    }

    // MARK: - Frames

    /// The single client-address frame a worker sees: the broker's number for the request.
    static func addressFrame(_ id: UInt64) -> Frame {
        withUnsafeBytes(of: id.bigEndian) { Array($0) }
    }

    static func requestNumber(_ frame: Frame) -> UInt64? {
        guard frame.count == 8 else { return nil }
        return frame.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The optional fifth READY frame (Backplane's extension): how many requests the worker
    /// takes at once, as ASCII digits. Absent means 1, as RFC 7 has it.
    static func credit(_ frame: Frame?) -> Int? {
        guard let frame else { return 1 }
        guard let value = Int(String(decoding: frame, as: UTF8.self)), (1...maxCredit).contains(value) else {
            return nil
        }
        return value
    }

    /// A reply in the system's wire contract: `[code][{"code","message","details"}]`.
    static func errorReply(to request: Request, code: String, message: String) -> Message {
        let service = String(decoding: request.service, as: UTF8.self)
        let json =
            "{\"code\":\(String.jsonStringLiteral(code)),\"message\":\(String.jsonStringLiteral(message)),"
            + "\"details\":{\"service\":\(String.jsonStringLiteral(service))}}"
        return toClient(request.envelope[...], service: request.service, [Array(code.utf8), Array(json.utf8)])
    }

    /// A message to a client: its envelope, then `["", "MDPC01", service, body...]`.
    static func toClient<Body: Collection<Frame>>(_ envelope: ArraySlice<Frame>, service: Frame, _ body: Body)
        -> Message
    {
        var message: Message = []
        message.reserveCapacity(envelope.count + 3 + body.count)
        message.append(contentsOf: envelope)
        message.append([])
        message.append(MDP.clientHeader)
        message.append(service)
        message.append(contentsOf: body)
        return message
    }
}
