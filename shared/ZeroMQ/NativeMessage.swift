import CZeroMQ

/// A received multipart message that keeps libzmq's own frames, so a forwarder can read the
/// frames it needs in place and pass the others on without copying them.
///
/// Frames handed on with ``Socket/send(_:body:dontWait:)`` move into libzmq; what is left is
/// released in `deinit`. A native message belongs to the thread of the socket that received it.
public final class NativeMessage {
    // Its owner's thread alone touches it and no access to these overlaps another, so they skip
    // the run-time exclusivity check a class's stored property pays on each access (the check
    // reads thread-local storage, and a forwarder makes several of these accesses per frame).
    @exclusivity(unchecked) private var frames: UnsafeMutablePointer<zmq_msg_t>
    @exclusivity(unchecked) private var capacity: Int
    /// How many frames it has.
    @exclusivity(unchecked) public private(set) var count = 0

    init(capacity: Int) {
        self.capacity = capacity
        frames = .allocate(capacity: capacity)
    }

    deinit {
        for index in 0..<count { zmq_msg_close(frames + index) }
        frames.deallocate()
    }

    /// A new, initialised frame at the end, for `zmq_msg_recv` to fill.
    func appendFrame() -> UnsafeMutablePointer<zmq_msg_t> {
        if count == capacity { grow() }
        let frame = frames + count
        zmq_msg_init(frame)
        count += 1
        return frame
    }

    /// Drops the last frame (a receive into it failed).
    func removeLastFrame() {
        count -= 1
        zmq_msg_close(frames + count)
    }

    private func grow() {
        let larger = UnsafeMutablePointer<zmq_msg_t>.allocate(capacity: capacity * 2)
        for index in 0..<count {
            zmq_msg_init(larger + index)
            zmq_msg_move(larger + index, frames + index)
            zmq_msg_close(frames + index)
        }
        frames.deallocate()
        frames = larger
        capacity *= 2
    }

    /// The size in bytes of frame `index`.
    public func size(_ index: Int) -> Int { zmq_msg_size(frames + index) }

    /// Calls `body` with the bytes of frame `index`, without copying them.
    public func withBytes<T>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let frame = frames + index
        let size = zmq_msg_size(frame)
        guard size > 0, let data = zmq_msg_data(frame) else {
            return try body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        return try body(UnsafeRawBufferPointer(start: data, count: size))
    }

    /// A copy of frame `index`.
    public subscript(index: Int) -> Frame {
        withBytes(index) { Array($0.bindMemory(to: UInt8.self)) }
    }

    /// Whether frame `index` holds exactly `bytes`.
    public func frame(_ index: Int, equals bytes: Frame) -> Bool {
        withBytes(index) { stored in bytes.withUnsafeBytes { $0.elementsEqual(stored) } }
    }

    /// Sends frame `index`: moved into libzmq (the frame is left empty), or with `keep` a copy
    /// that shares its buffer (libzmq counts references; nothing is copied), so it can be sent
    /// again.
    func send(_ index: Int, on handle: UnsafeMutableRawPointer, flags: Int32, keep: Bool) -> Int32 {
        guard keep else { return zmq_msg_send(frames + index, handle, flags) }
        var copy = zmq_msg_t()
        zmq_msg_init(&copy)
        zmq_msg_copy(&copy, frames + index)
        let rc = zmq_msg_send(&copy, handle, flags)
        if rc < 0 { zmq_msg_close(&copy) }
        return rc
    }
}

/// The frames after a message's header: copies, or frames still held in a ``NativeMessage``.
public enum MessageBody {
    /// Frames as bytes.
    case frames(ArraySlice<Frame>)
    /// Frames `from...` of a received message, passed on without copying.
    case native(NativeMessage, from: Int)
    /// Frames `from...` of a ``PackedMessage``.
    case packed(PackedMessage, from: Int)

    /// No frames.
    public static var empty: MessageBody { .frames([]) }

    /// How many frames it has.
    public var count: Int {
        switch self {
        case .frames(let frames): frames.count
        case .native(let message, let from): message.count - from
        case .packed(let message, let from): message.count - from
        }
    }

    /// Calls `body` with the bytes of each frame in turn, without copying them.
    public func forEachFrame(_ body: (UnsafeRawBufferPointer) -> Void) {
        switch self {
        case .frames(let frames):
            for frame in frames { frame.withUnsafeBytes(body) }
        case .native(let message, let from):
            for index in from..<message.count { message.withBytes(index, body) }
        case .packed(let message, let from):
            for index in from..<message.count { message.withBytes(index, body) }
        }
    }

    /// The frames as bytes (copied when native).
    public var frames: [Frame] {
        switch self {
        case .frames(let frames): Array(frames)
        case .native(let message, let from): (from..<message.count).map { message[$0] }
        case .packed(let message, let from): (from..<message.count).map { message[$0] }
        }
    }
}

extension Socket {
    /// Receives one multipart message and keeps libzmq's frames (see ``NativeMessage``).
    ///
    /// - Returns: `nil` when `dontWait` is set and nothing is waiting.
    public func receiveNative(dontWait: Bool = false) throws(ZMQError) -> NativeMessage? {
        let handle = try live("receive")
        let message = NativeMessage(capacity: 8)
        while true {
            let frame = message.appendFrame()
            let rc = zmq_msg_recv(frame, handle, dontWait && message.count == 1 ? ZMQ_DONTWAIT : 0)
            if rc < 0 {
                message.removeLastFrame()
                let error = ZMQError.last("receive")
                if error.code == .interrupted { continue }
                if error.code == .wouldBlock && message.count == 0 { return nil }
                throw error
            }
            if zmq_msg_more(frame) == 0 { return message }
        }
    }

    /// Sends `head` (copied) followed by `body` as one multipart message. Native body frames move
    /// into libzmq without a copy; with `keepBody` they stay in their message too (sharing the
    /// buffers), for a message that may have to be sent again elsewhere.
    ///
    /// - Returns: `false` when `dontWait` is set and the message could not be queued now; nothing
    ///   of it was sent then, and a native body is untouched.
    @discardableResult
    public func send(_ head: Message, body: MessageBody, keepBody: Bool = false, dontWait: Bool = false)
        throws(ZMQError) -> Bool
    {
        let handle = try live("send")
        let base = dontWait ? ZMQ_DONTWAIT : 0
        let total = head.count + body.count
        var index = 0
        /// Sends the next frame with `attempt(flags)`; `false` for a would-block on the first.
        func put(_ attempt: (Int32) -> Int32) throws(ZMQError) -> Bool {
            let flags = base | (index < total - 1 ? ZMQ_SNDMORE : 0)
            while true {
                if attempt(flags) >= 0 {
                    index += 1
                    return true
                }
                let error = ZMQError.last("send")
                if error.code == .interrupted { continue }
                // libzmq queues a multipart message atomically: a would-block shows on the first
                // frame, before anything is consumed.
                if error.code == .wouldBlock && index == 0 { return false }
                throw error
            }
        }
        func put(_ frame: Frame) throws(ZMQError) -> Bool {
            try put { flags in frame.withUnsafeBytes { zmq_send(handle, $0.baseAddress, $0.count, flags) } }
        }
        for frame in head {
            guard try put(frame) else { return false }
        }
        switch body {
        case .frames(let frames):
            for frame in frames {
                guard try put(frame) else { return false }
            }
        case .native(let message, let from):
            for frameIndex in from..<message.count {
                guard try put({ flags in message.send(frameIndex, on: handle, flags: flags, keep: keepBody) }) else {
                    return false
                }
            }
        case .packed(let message, let from):
            for frameIndex in from..<message.count {
                let sent = try put { flags in
                    message.withBytes(frameIndex) { zmq_send(handle, $0.baseAddress, $0.count, flags) }
                }
                guard sent else { return false }
            }
        }
        return true
    }
}
