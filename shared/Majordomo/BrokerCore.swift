import Contract
import ZeroMQ

/// A message the broker received; the frames after the header are passed on as they are.
public protocol BrokerInbound {
    var count: Int { get }
    subscript(index: Int) -> Frame { get }
    func size(_ index: Int) -> Int
    func frame(_ index: Int, equals bytes: Frame) -> Bool
    func body(from index: Int) -> MessageBody
    func withBytes<T>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T
    /// Frames `0..<count`, the return envelope, kept until the reply.
    func envelope(_ count: Int) -> Envelope
}

extension BrokerInbound {
    public func envelope(_ count: Int) -> Envelope { .frames((0..<count).map { self[$0] }) }
    func string(_ index: Int) -> String { withBytes(index) { String(decoding: $0, as: UTF8.self) } }
    /// The first byte of frame `index`, which must not be empty.
    func firstByte(_ index: Int) -> UInt8 { withBytes(index) { $0[0] } }
}

extension Array: BrokerInbound where Element == Frame {
    public func withBytes<T>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try self[index].withUnsafeBytes(body)
    }
    public func size(_ index: Int) -> Int { self[index].count }
    public func frame(_ index: Int, equals bytes: Frame) -> Bool { self[index] == bytes }
    public func body(from index: Int) -> MessageBody { .frames(self[index...]) }
}

extension PackedMessage: BrokerInbound {
    public func body(from index: Int) -> MessageBody { .packed(self, from: index) }
    public func envelope(_ count: Int) -> Envelope { .packed(self, count: count) }
}

/// A client's return envelope: its identity, then any frames before the delimiter. Kept in its
/// ``PackedMessage`` (which the request's body holds anyway), so it costs no copy.
public enum Envelope {
    case frames([Frame])
    case packed(PackedMessage, count: Int)

    public var count: Int {
        switch self {
        case .frames(let frames): frames.count
        case .packed(_, let count): count
        }
    }

    public func withBytes<T>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        switch self {
        case .frames(let frames): try frames[index].withUnsafeBytes(body)
        case .packed(let message, _): try message.withBytes(index, body)
        }
    }

    public var frames: [Frame] {
        switch self {
        case .frames(let frames): frames
        case .packed(let message, let count): (0..<count).map { message[$0] }
        }
    }
}

/// A message for the ROUTER socket (identity first): header frames, then a body passed on.
public struct Outgoing {
    /// The identity and header frames. The round trip's two messages hold them as values, so
    /// nothing is allocated per message; ``forEachHeadFrame(_:)`` writes them onto the wire.
    public enum Head {
        case frames(Message)
        /// `[worker, "", "MDPW01", REQUEST, number (8 bytes, big-endian), ""]`.
        case request(worker: Frame, number: UInt64)
        /// `[envelope..., "", "MDPC01", service]`.
        case toClient(envelope: Envelope, service: Frame)
    }

    public var kind: Head
    public var body: MessageBody
    public init(_ kind: Head, body: MessageBody) {
        self.kind = kind
        self.body = body
    }

    public var routingID: Frame { withRoutingID { Array($0) } }

    public func withRoutingID<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        switch kind {
        case .frames(let frames): try (frames.first ?? []).withUnsafeBytes(body)
        case .request(let worker, _): try worker.withUnsafeBytes(body)
        case .toClient(let envelope, _): try envelope.withBytes(0, body)
        }
    }

    public var headFramesAfterRoutingID: Int {
        switch kind {
        case .frames(let frames): max(0, frames.count - 1)
        case .request: 5
        case .toClient(let envelope, _): envelope.count - 1 + 3
        }
    }

    /// Each head frame after the routing id, in order, uncopied.
    public func forEachHeadFrame(_ body: (UnsafeRawBufferPointer) -> Void) {
        let empty = UnsafeRawBufferPointer(start: nil, count: 0)
        switch kind {
        case .frames(let frames):
            for frame in frames.dropFirst() { frame.withUnsafeBytes(body) }
        case .request(_, let number):
            body(empty)
            MDP.workerHeader.withUnsafeBytes(body)
            MDP.Command.request.frame.withUnsafeBytes(body)
            withUnsafeBytes(of: number.bigEndian, body)
            body(empty)
        case .toClient(let envelope, let service):
            for index in 1..<max(1, envelope.count) { envelope.withBytes(index, body) }
            body(empty)
            MDP.clientHeader.withUnsafeBytes(body)
            service.withUnsafeBytes(body)
        }
    }

    public var head: Message {
        switch kind {
        case .frames(let frames):
            return frames
        case .request(let worker, let number):
            return [worker, [], MDP.workerHeader, MDP.Command.request.frame, BrokerCore.addressFrame(number), []]
        case .toClient(let envelope, let service):
            return envelope.frames + [[], MDP.clientHeader, service]
        }
    }
}

/// The Majordomo broker's rules (RFC 7, RFC 8) without sockets or clock: ROUTER messages and
/// monotonic milliseconds in, ROUTER messages out (identity first). ``Broker`` drives it.
public struct BrokerCore {
    struct Request {
        let id: UInt64
        let envelope: Envelope
        let service: Frame
        let body: MessageBody
        let expiresAt: Int64
    }

    /// A registered worker. Values in arrays, changed in place: no exclusivity checks. Read
    /// fields via `workers[slot]?.field`: a copy held while `inHand` changes makes it copy itself.
    struct Worker {
        let identity: Frame
        let service: Int
        var expiresAt: Int64
        /// 1 for a plain RFC 7 worker, more when its READY said so.
        let credit: Int
        var inHand: [UInt64: Request] = [:]
        /// In its service's `waiting` line.
        var isWaiting = true

        init(identity: Frame, service: Int, expiresAt: Int64, credit: Int) {
            self.identity = identity
            self.service = service
            self.expiresAt = expiresAt
            self.credit = credit
            inHand.reserveCapacity(credit)
        }

        var hasCredit: Bool { inHand.count < credit }
    }

    struct Service {
        let name: Frame
        let label: String
        var requests = FIFO<Request>()
        /// The slots of its workers with credit left, least recently used first.
        var waiting = FIFO<Int>()
        var workerCount = 0
        var accepted = 0
    }

    /// A client's identity plus its own envelope frames.
    static let maxEnvelopeFrames = 8
    /// The most requests one worker connection may ask to hold at once.
    public static let maxCredit = 1024

    let configuration: BrokerConfiguration
    private var services: [Service] = []
    private var serviceSlots: [String: Int] = [:]
    /// Comparing bytes with the last service usually spares a string and a lookup.
    private var lastService: Int?
    private var workers: [Worker?] = []
    private var freeWorkerSlots: [Int] = []
    private var workerSlots: [PeerKey: Int] = [:]
    private var nextRequestID: UInt64 = 1
    private var nextHeartbeatAt: Int64
    public private(set) var statistics = BrokerStatistics()

    public init(configuration: BrokerConfiguration, now: Int64) {
        self.configuration = configuration
        self.nextHeartbeatAt = now + configuration.heartbeat.intervalMs
    }

    public func workerCount(for service: String) -> Int { serviceSlots[service].map { services[$0].workerCount } ?? 0 }

    public func queuedCount(for service: String) -> Int {
        serviceSlots[service].map { services[$0].requests.count } ?? 0
    }

    /// Figures of every service named so far.
    public func serviceFigures() -> [BrokerServiceFigures] {
        services.map {
            BrokerServiceFigures(service: $0.label, queued: $0.requests.count, workers: $0.workerCount, accepted: $0.accepted)
        }
    }

    /// When ``tick(now:into:)`` next has work to do.
    public func nextWakeAt() -> Int64 {
        var wake = nextHeartbeatAt
        for service in services {
            if let first = service.requests.first { wake = min(wake, first.expiresAt) }
        }
        return wake
    }

    // MARK: - Input

    public mutating func handle<Inbound: BrokerInbound>(_ message: Inbound, now: Int64, into out: inout [Outgoing]) {
        guard message.count >= 3,
            let delimiter = (1..<min(message.count, Self.maxEnvelopeFrames + 1)).first(where: { message.size($0) == 0 }
            ),
            delimiter + 1 < message.count
        else { return malformed() }
        if message.frame(delimiter + 1, equals: MDP.clientHeader) {
            handleClient(message, delimiter: delimiter, now: now, into: &out)
        } else if delimiter == 1, message.frame(2, equals: MDP.workerHeader) {
            handleWorker(message, now: now, into: &out)
        } else {
            malformed()
        }
    }

    private mutating func malformed() { statistics.malformed += 1 }

    /// `[envelope..., "", "MDPC01", service, body...]`, the delimiter at `delimiter`.
    private mutating func handleClient<Inbound: BrokerInbound>(
        _ message: Inbound, delimiter: Int, now: Int64, into out: inout [Outgoing]
    ) {
        let serviceIndex = delimiter + 2
        guard message.count >= serviceIndex + 2, message.size(serviceIndex) > 0 else { return malformed() }
        let envelope = message.envelope(delimiter)
        let slot: Int
        // No service is named `mmi.…`, so the last service never matches a management request.
        if let last = lastService, message.frame(serviceIndex, equals: services[last].name) {
            slot = last
        } else {
            let name = message.string(serviceIndex)
            if name.hasPrefix(MDP.mmiPrefix) {
                out.append(
                    Self.toClient(
                        envelope, service: message[serviceIndex],
                        .frames(management(name, asked: message[serviceIndex + 1])[...])))
                return
            }
            slot = serviceSlot(named: name) { message[serviceIndex] }
            lastService = slot
        }
        let request = Request(
            id: nextRequestID, envelope: envelope, service: services[slot].name,
            body: message.body(from: serviceIndex + 1), expiresAt: now + configuration.requestTimeoutMs)
        nextRequestID &+= 1
        let queued = services[slot].requests.count
        if queued >= configuration.maxQueuedPerService {
            statistics.expired += 1
            out.append(
                Self.errorReply(
                    to: request, code: "unavailable",
                    message: "service '\(services[slot].label)' has \(queued) requests waiting; try again later"))
            return
        }
        statistics.requests += 1
        services[slot].accepted += 1
        services[slot].requests.append(request)
        dispatch(slot, now: now, into: &out)
    }

    /// RFC 8: `mmi.service` says whether a live worker serves the named service.
    private func management(_ name: String, asked: Frame) -> [Frame] {
        guard name == "mmi.service" else { return [Array("501".utf8)] }
        let asked = String(decoding: asked, as: UTF8.self)
        let found = workerCount(for: asked) > 0
        return [Array((found ? "200" : "404").utf8)]
    }

    /// `[identity, "", "MDPW01", command, arguments...]`.
    private mutating func handleWorker<Inbound: BrokerInbound>(
        _ message: Inbound, now: Int64, into out: inout [Outgoing]
    ) {
        let slot = message.withBytes(0) { workerSlots[PeerKey($0)] }
        guard message.count > 3, message.size(3) == 1, let command = MDP.Command(rawValue: message.firstByte(3)) else {
            return invalidFromWorker(slot, now: now, into: &out)
        }
        let first = 4
        let argumentCount = message.count - first
        if let slot, command != .disconnect {
            workers[slot]?.expiresAt = now + configuration.heartbeat.expiryMs
        }
        switch command {
        case .ready:
            guard (1...2).contains(argumentCount), message.size(first) > 0,
                let credit = Self.credit(argumentCount == 2 ? message[first + 1] : nil)
            else {
                return invalidFromWorker(slot, now: now, into: &out)
            }
            let name = message.string(first)
            if slot != nil || name.hasPrefix(MDP.mmiPrefix) {
                return disconnect(message[0], slot: slot, now: now, into: &out)
            }
            let service = serviceSlot(named: name) { message[first] }
            addWorker(message[0], service: service, credit: credit, now: now)
            dispatch(service, now: now, into: &out)
        case .reply:
            guard let slot else { return disconnect(message[0], slot: nil, now: now, into: &out) }
            guard argumentCount >= 3, message.size(first + 1) == 0 else {
                return invalidFromWorker(slot, now: now, into: &out)
            }
            guard let number = message.withBytes(first, Self.requestNumber),
                let request = workers[slot]?.inHand.removeValue(forKey: number)
            else { return disconnect(message[0], slot: slot, now: now, into: &out) }
            statistics.replies += 1
            out.append(Self.toClient(request.envelope, service: request.service, message.body(from: first + 2)))
            // Fields, not a copy of the worker: `dispatch` changes its `inHand`.
            if workers[slot]?.isWaiting == false, let service = workers[slot]?.service {
                workers[slot]?.isWaiting = true
                services[service].waiting.append(slot)
                dispatch(service, now: now, into: &out)
            }
        case .heartbeat:
            guard argumentCount == 0 else { return invalidFromWorker(slot, now: now, into: &out) }
            if slot == nil { disconnect(message[0], slot: nil, now: now, into: &out) }
        case .disconnect:
            // Send nothing more. Our workers reply before leaving, so a held request was never
            // started: requeue it.
            if let slot { removeWorker(slot, requeue: true, now: now, into: &out) }
        case .request:
            disconnect(message[0], slot: slot, now: now, into: &out)
        }
    }

    /// Drops the message, and the registered worker that sent it.
    private mutating func invalidFromWorker(_ slot: Int?, now: Int64, into out: inout [Outgoing]) {
        malformed()
        if let slot, let identity = workers[slot]?.identity { disconnect(identity, slot: slot, now: now, into: &out) }
    }

    // MARK: - Time

    /// Heartbeats workers, expires silent workers and requests that waited too long.
    public mutating func tick(now: Int64, into out: inout [Outgoing]) {
        for index in services.indices {
            while let first = services[index].requests.first, first.expiresAt <= now {
                _ = services[index].requests.popFirst()
                expire(first, into: &out)
            }
        }
        guard now >= nextHeartbeatAt else { return }
        nextHeartbeatAt = now + configuration.heartbeat.intervalMs
        let dead = workers.indices.filter { workers[$0].map { $0.expiresAt <= now } ?? false }
        for slot in dead {
            statistics.expiredWorkers += 1
            removeWorker(slot, requeue: false, now: now, into: &out)
        }
        for case let worker? in workers {
            out.append(Outgoing(.frames([worker.identity] + MDP.workerCommand(.heartbeat)), body: .empty))
        }
    }

    /// The ROUTER could not reach a worker: forget it. An undelivered REQUEST (`undelivered` is
    /// its head) goes to another worker; requests it held fail `unavailable`, never running twice.
    public mutating func workerUnreachable(
        _ identity: Frame, undelivered: Message, now: Int64, into out: inout [Outgoing]
    ) {
        guard let slot = workerSlots[PeerKey(identity)], let service = workers[slot]?.service else { return }
        if undelivered.count > 4, undelivered[3] == MDP.Command.request.frame,
            let number = Self.requestNumber(undelivered[4]),
            let request = workers[slot]?.inHand.removeValue(forKey: number)
        {
            services[service].requests.prepend(request)
        }
        removeWorker(slot, requeue: false, now: now, into: &out)
    }

    // MARK: - Workers and queues

    private mutating func serviceSlot(named name: String, frame: () -> Frame) -> Int {
        if let slot = serviceSlots[name] { return slot }
        services.append(Service(name: frame(), label: name))
        serviceSlots[name] = services.count - 1
        return services.count - 1
    }

    private mutating func addWorker(_ identity: Frame, service: Int, credit: Int, now: Int64) {
        let worker = Worker(
            identity: identity, service: service, expiresAt: now + configuration.heartbeat.expiryMs, credit: credit)
        let slot: Int
        if let free = freeWorkerSlots.popLast() {
            slot = free
            workers[slot] = worker
        } else {
            slot = workers.count
            workers.append(worker)
        }
        workerSlots[PeerKey(identity)] = slot
        services[service].workerCount += 1
        services[service].waiting.append(slot)
    }

    /// Hands queued requests to waiting workers, least recently used first; one with credit left
    /// goes to the back of the line. `removeWorker` takes a worker out of line before freeing its slot.
    private mutating func dispatch(_ service: Int, now: Int64, into out: inout [Outgoing]) {
        while !services[service].waiting.isEmpty, let request = services[service].requests.popFirst() {
            if request.expiresAt <= now {
                expire(request, into: &out)
                continue
            }
            guard let slot = services[service].waiting.popFirst(), workers[slot] != nil else {
                assertionFailure("a free worker slot waited in line for '\(services[service].label)'")
                services[service].requests.prepend(request)
                continue
            }
            workers[slot]?.inHand[request.id] = request
            if workers[slot]?.hasCredit == true {
                services[service].waiting.append(slot)
            } else {
                workers[slot]?.isWaiting = false
            }
            out.append(
                Outgoing(.request(worker: workers[slot]?.identity ?? [], number: request.id), body: request.body))
        }
    }

    private mutating func disconnect(_ identity: Frame, slot: Int?, now: Int64, into out: inout [Outgoing]) {
        statistics.disconnects += 1
        out.append(Outgoing(.frames([identity] + MDP.workerCommand(.disconnect)), body: .empty))
        if let slot { removeWorker(slot, requeue: false, now: now, into: &out) }
    }

    private mutating func removeWorker(_ slot: Int, requeue: Bool, now: Int64, into out: inout [Outgoing]) {
        guard let worker = workers[slot] else { return }
        workers[slot] = nil
        freeWorkerSlots.append(slot)
        workerSlots[PeerKey(worker.identity)] = nil
        services[worker.service].workerCount -= 1
        if worker.isWaiting { services[worker.service].waiting.removeAll { $0 == slot } }
        let held = worker.inHand.values.sorted { $0.id < $1.id }
        if requeue {
            for request in held.reversed() { services[worker.service].requests.prepend(request) }
        } else {
            for request in held {
                statistics.abandoned += 1
                out.append(
                    Self.errorReply(
                        to: request, code: "unavailable",
                        message:
                            "the '\(services[worker.service].label)' worker handling this request stopped responding"
                    ))
            }
        }
        dispatch(worker.service, now: now, into: &out)
    }

    private mutating func expire(_ request: Request, into out: inout [Outgoing]) {
        statistics.expired += 1
        let name = String(decoding: request.service, as: UTF8.self)
        out.append(
            Self.errorReply(
                to: request, code: "unavailable",
                message: "no '\(name)' worker took the request within \(configuration.requestTimeoutMs) ms"))
    }
    // MARK: - Frames

    /// The client-address frame a worker sees: the broker's number for the request.
    public static func addressFrame(_ id: UInt64) -> Frame {
        withUnsafeBytes(of: id.bigEndian) { Array($0) }
    }

    static func requestNumber<Bytes: Collection<UInt8>>(_ frame: Bytes) -> UInt64? {
        guard frame.count == 8 else { return nil }
        return frame.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Backplane's optional fifth READY frame: requests taken at once, in ASCII. Absent: 1, per RFC 7.
    static func credit(_ frame: Frame?) -> Int? {
        guard let frame else { return 1 }
        guard let value = Int(String(decoding: frame, as: UTF8.self)), (1...maxCredit).contains(value) else {
            return nil
        }
        return value
    }

    /// `[code][{"code","message","details"}]`, the system's error contract.
    static func errorReply(to request: Request, code: String, message: String) -> Outgoing {
        let service = String(decoding: request.service, as: UTF8.self)
        let json =
            "{\"code\":\(String.jsonStringLiteral(code)),\"message\":\(String.jsonStringLiteral(message)),"
            + "\"details\":{\"service\":\(String.jsonStringLiteral(service))}}"
        return toClient(request.envelope, service: request.service, .frames([Array(code.utf8), Array(json.utf8)]))
    }

    /// Its envelope, then `["", "MDPC01", service, body...]`.
    static func toClient(_ envelope: Envelope, service: Frame, _ body: MessageBody) -> Outgoing {
        Outgoing(.toClient(envelope: envelope, service: service), body: body)
    }
}
