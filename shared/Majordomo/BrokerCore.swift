import Contract
import ZeroMQ

/// A message the broker received, read frame by frame; the frames after the header are passed on
/// as they are (without copying, for a ``NativeMessage``).
public protocol BrokerInbound {
    /// How many frames it has.
    var count: Int { get }
    /// A copy of frame `index`.
    subscript(index: Int) -> Frame { get }
    /// The size in bytes of frame `index`.
    func size(_ index: Int) -> Int
    /// Whether frame `index` holds exactly `bytes`.
    func frame(_ index: Int, equals bytes: Frame) -> Bool
    /// Frames `index...`, to pass on.
    func body(from index: Int) -> MessageBody
    /// Calls `body` with the bytes of frame `index`, without copying them.
    func withBytes<T>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T
    /// Frames `0..<count`, the return envelope, to keep until the reply.
    func envelope(_ count: Int) -> Envelope
}

extension BrokerInbound {
    public func envelope(_ count: Int) -> Envelope { .frames((0..<count).map { self[$0] }) }
    /// Frame `index` as UTF-8 text.
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

extension NativeMessage: BrokerInbound {
    public func body(from index: Int) -> MessageBody { .native(self, from: index) }
}

extension PackedMessage: BrokerInbound {
    public func body(from index: Int) -> MessageBody { .packed(self, from: index) }
    public func envelope(_ count: Int) -> Envelope { .packed(self, count: count) }
}

/// A client's return envelope: its identity, then any frames it put before the delimiter. Kept
/// in the message it came in (which the request's body holds anyway) when that is a
/// ``PackedMessage``, so a request costs no copy of it.
public enum Envelope {
    /// Frames as bytes.
    case frames([Frame])
    /// The first `count` frames of a received message.
    case packed(PackedMessage, count: Int)

    /// How many frames it has (at least one, the identity).
    public var count: Int {
        switch self {
        case .frames(let frames): frames.count
        case .packed(_, let count): count
        }
    }

    /// Calls `body` with the bytes of frame `index`, without copying them.
    public func withBytes<T>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        switch self {
        case .frames(let frames): try frames[index].withUnsafeBytes(body)
        case .packed(let message, _): try message.withBytes(index, body)
        }
    }

    /// The frames, copied.
    public var frames: [Frame] {
        switch self {
        case .frames(let frames): frames
        case .packed(let message, let count): (0..<count).map { message[$0] }
        }
    }
}

/// A message for the ROUTER socket (identity first): header frames, then a body passed on.
public struct Outgoing {
    /// The identity and header frames. The two messages of every round trip say them as values,
    /// not as an array of frames, so the broker allocates and counts references to none per
    /// message; the ROUTER writes them straight onto the wire (``forEachHeadFrame(_:)``).
    public enum Head {
        /// Frames as they are: the identity, then the header frames.
        case frames(Message)
        /// A REQUEST to a worker: `[worker, "", "MDPW01", REQUEST, address, ""]`, the address
        /// being the broker's number for the request (8 bytes, big-endian).
        case request(worker: Frame, number: UInt64)
        /// To a client: `[envelope..., "", "MDPC01", service]`.
        case toClient(envelope: Envelope, service: Frame)
    }

    /// The identity and header frames.
    public var kind: Head
    /// The frames after them.
    public var body: MessageBody
    /// Whether the body must stay usable after sending: a request handed to a worker goes to
    /// another one if the first leaves before answering.
    public var keepsBody = false

    public init(_ kind: Head, body: MessageBody, keepsBody: Bool = false) {
        self.kind = kind
        self.body = body
        self.keepsBody = keepsBody
    }

    /// The peer it goes to.
    public var routingID: Frame { withRoutingID { Array($0) } }

    /// Calls `body` with the bytes of the routing id, without copying them.
    public func withRoutingID<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        switch kind {
        case .frames(let frames): try (frames.first ?? []).withUnsafeBytes(body)
        case .request(let worker, _): try worker.withUnsafeBytes(body)
        case .toClient(let envelope, _): try envelope.withBytes(0, body)
        }
    }

    /// How many frames follow the routing id in the head.
    public var headFramesAfterRoutingID: Int {
        switch kind {
        case .frames(let frames): max(0, frames.count - 1)
        case .request: 5
        case .toClient(let envelope, _): envelope.count - 1 + 3
        }
    }

    /// Calls `body` with each head frame after the routing id, in order, without copying.
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

    /// The identity and header frames as bytes.
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

    /// All its frames as bytes.
    public var frames: Message { head + body.frames }
}

/// The Majordomo broker's rules (RFC 7 and RFC 8) with no sockets and no clock.
///
/// Input is what the ROUTER socket received (identity first) and the time in monotonic
/// milliseconds; output is the messages to send on the ROUTER socket (identity first). The
/// ``Broker`` feeds it from real sockets; tests can drive it directly.
public struct BrokerCore {
    struct Request {
        let id: UInt64
        let envelope: Envelope
        let service: Frame
        let body: MessageBody
        let expiresAt: Int64
    }

    /// A registered worker connection. Workers and services are values kept by slot in arrays and
    /// changed in place, so they pay none of the run-time exclusivity checks that a class's stored
    /// properties pay on every access (about 8% of the broker thread's time when they were
    /// classes). Read a worker's fields through `workers[slot]?.field`: a copy of a worker held
    /// while its `inHand` changes would make that table copy itself.
    struct Worker {
        let identity: Frame
        /// Its service's slot in `services`.
        let service: Int
        var expiresAt: Int64
        /// Requests it may hold at once: 1 for a plain RFC 7 worker, more when its READY said so.
        let credit: Int
        /// The requests it holds, by the number in their client-address frame.
        var inHand: [UInt64: Request] = [:]
        /// Whether it is in its service's waiting line.
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
        /// The name as text, for messages.
        let label: String
        var requests = FIFO<Request>()
        /// The slots of its workers with credit left, least recently used first.
        var waiting = FIFO<Int>()
        var workerCount = 0
        /// Client requests accepted into its queue so far.
        var accepted = 0
    }

    /// How deep a client's return envelope may be (its identity plus its own tags).
    static let maxEnvelopeFrames = 8
    /// The most requests one worker connection may ask to hold at once.
    public static let maxCredit = 1024

    let configuration: BrokerConfiguration
    /// Services by slot; a service keeps its slot once named.
    private var services: [Service] = []
    private var serviceSlots: [String: Int] = [:]
    /// The service of the last client request. Most requests name one of a few services, so
    /// comparing bytes with it usually spares making a string and looking it up.
    private var lastService: Int?
    /// Workers by slot; `nil` marks a free slot, reused by the next worker.
    private var workers: [Worker?] = []
    private var freeWorkerSlots: [Int] = []
    private var workerSlots: [PeerKey: Int] = [:]
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
    public func workerCount(for service: String) -> Int { serviceSlots[service].map { services[$0].workerCount } ?? 0 }

    /// How many requests wait for a worker of `service`.
    public func queuedCount(for service: String) -> Int {
        serviceSlots[service].map { services[$0].requests.count } ?? 0
    }

    /// Each service named so far: requests waiting, live workers, requests accepted.
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

    /// Handles one message from the ROUTER socket.
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

    /// ``handle(_:now:into:)`` with the output as plain messages (for tests and tools).
    public mutating func handle(_ message: Message, now: Int64, into out: inout [Message]) {
        plain(into: &out) { $0.handle(message, now: now, into: &$1) }
    }

    /// Runs `step` and appends what it produced as plain messages.
    private mutating func plain(into out: inout [Message], _ step: (inout BrokerCore, inout [Outgoing]) -> Void) {
        var produced: [Outgoing] = []
        step(&self, &produced)
        out += produced.map(\.frames)
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
        // No service is named `mmi.…` (neither clients nor workers can create one), so a match
        // with the last service is never a management request.
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
        /// Where the arguments start, and how many there are.
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
            // Read what is needed, not a copy of the worker: a copy held while `dispatch` adds to
            // its requests in hand would make that table copy itself.
            if workers[slot]?.isWaiting == false, let service = workers[slot]?.service {
                workers[slot]?.isWaiting = true
                services[service].waiting.append(slot)
                dispatch(service, now: now, into: &out)
            }
        case .heartbeat:
            guard argumentCount == 0 else { return invalidFromWorker(slot, now: now, into: &out) }
            if slot == nil { disconnect(message[0], slot: nil, now: now, into: &out) }
        case .disconnect:
            // The worker has said goodbye: send nothing more. A request it held was never
            // started (our workers reply before leaving), so it goes back to the queue.
            if let slot { removeWorker(slot, requeue: true, now: now, into: &out) }
        case .request:
            disconnect(message[0], slot: slot, now: now, into: &out)
        }
    }

    /// A message that does not parse: dropped, and a registered worker that sent it is dropped too.
    private mutating func invalidFromWorker(_ slot: Int?, now: Int64, into out: inout [Outgoing]) {
        malformed()
        if let slot, let identity = workers[slot]?.identity { disconnect(identity, slot: slot, now: now, into: &out) }
    }

    // MARK: - Time

    /// ``tick(now:into:)`` with the output as plain messages (for tests and tools).
    public mutating func tick(now: Int64, into out: inout [Message]) {
        plain(into: &out) { $0.tick(now: now, into: &$1) }
    }

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

    /// The ROUTER could not reach a worker (its connection is gone): forget it.
    ///
    /// If the undeliverable message was the REQUEST itself, the worker never saw it and another
    /// worker gets it. Otherwise the worker had the request in hand and may have acted on it, so
    /// the client is told `unavailable` rather than having it run twice. `undelivered` is the
    /// message's head: identity and header frames.
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

    /// ``workerUnreachable(_:undelivered:now:into:)`` with the output as plain messages.
    public mutating func workerUnreachable(
        _ identity: Frame, undelivered: Message, now: Int64, into out: inout [Message]
    ) {
        plain(into: &out) { $0.workerUnreachable(identity, undelivered: undelivered, now: now, into: &$1) }
    }

    // MARK: - Workers and queues

    private mutating func serviceSlot(named name: String, frame: () -> Frame) -> Int {
        if let slot = serviceSlots[name] { return slot }
        services.append(Service(name: frame(), label: name))
        serviceSlots[name] = services.count - 1
        return services.count - 1
    }

    /// Registers a worker in a free slot, at the back of its service's waiting line.
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

    /// Hands queued requests to waiting workers, least recently used first. A worker with credit
    /// left after taking one goes to the back of the line, so load spreads over workers.
    ///
    /// Only live workers wait in line: ``removeWorker(_:requeue:now:into:)`` takes a worker out of
    /// it before freeing its slot.
    private mutating func dispatch(_ service: Int, now: Int64, into out: inout [Outgoing]) {
        while !services[service].waiting.isEmpty, let request = services[service].requests.popFirst() {
            if request.expiresAt <= now {
                expire(request, into: &out)
                continue
            }
            guard let slot = services[service].waiting.popFirst(), workers[slot] != nil else {
                // Cannot happen (see above); if it did, the request would stay first in line.
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
                Outgoing(
                    .request(worker: workers[slot]?.identity ?? [], number: request.id), body: request.body,
                    keepsBody: true))
        }
    }

    /// Sends DISCONNECT to `identity` and forgets the worker, if `slot` says it was registered.
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

    /// The single client-address frame a worker sees: the broker's number for the request.
    public static func addressFrame(_ id: UInt64) -> Frame {
        withUnsafeBytes(of: id.bigEndian) { Array($0) }
    }

    static func requestNumber<Bytes: Collection<UInt8>>(_ frame: Bytes) -> UInt64? {
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
    static func errorReply(to request: Request, code: String, message: String) -> Outgoing {
        let service = String(decoding: request.service, as: UTF8.self)
        let json =
            "{\"code\":\(String.jsonStringLiteral(code)),\"message\":\(String.jsonStringLiteral(message)),"
            + "\"details\":{\"service\":\(String.jsonStringLiteral(service))}}"
        return toClient(request.envelope, service: request.service, .frames([Array(code.utf8), Array(json.utf8)]))
    }

    /// A message to a client: its envelope, then `["", "MDPC01", service, body...]`.
    static func toClient(_ envelope: Envelope, service: Frame, _ body: MessageBody) -> Outgoing {
        Outgoing(.toClient(envelope: envelope, service: service), body: body)
    }
}
