/// A multipart message with all its frames in one buffer: one allocation per message, not per frame.
public struct PackedMessage {
    /// Frame ends kept inline; MDP's messages have 6 or 7 frames.
    public static let inlineFrames = 8

    private var bytes: [UInt8] = []
    /// Where each of the first ``inlineFrames`` frames ends in `bytes`; `moreEnds` has the rest.
    private var inlineEnds = InlineArray<8, UInt32>(repeating: 0)
    private var moreEnds: [UInt32] = []
    public private(set) var count = 0

    public init(byteCapacity: Int = 0, frameCapacity: Int = 8) {
        bytes.reserveCapacity(byteCapacity)
        if frameCapacity > Self.inlineFrames { moreEnds.reserveCapacity(frameCapacity - Self.inlineFrames) }
    }

    public init(_ frames: Message) {
        self.init(byteCapacity: frames.reduce(0) { $0 + $1.count }, frameCapacity: frames.count)
        for frame in frames { frame.withUnsafeBytes { append($0) } }
    }

    /// Adds a frame. Ends are `UInt32`: a message is at most 4 GiB (``ZMTPRouter`` caps it far lower).
    public mutating func append(_ frame: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: frame)
        let end = UInt32(bytes.count)
        if count < Self.inlineFrames {
            inlineEnds[count] = end
        } else {
            moreEnds.append(end)
        }
        count += 1
    }

    private func end(_ index: Int) -> Int {
        Int(index < Self.inlineFrames ? inlineEnds[index] : moreEnds[index - Self.inlineFrames])
    }

    public var byteCount: Int { bytes.count }

    public func size(_ index: Int) -> Int { end(index) - (index == 0 ? 0 : end(index - 1)) }

    /// The bytes of frame `index`, uncopied.
    public func withBytes<T>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        precondition(index >= 0 && index < count, "frame \(index) of a message of \(count)")
        let start = index == 0 ? 0 : end(index - 1)
        let end = end(index)
        return try bytes.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[start..<end])) }
    }

    public subscript(index: Int) -> Frame { withBytes(index) { Array($0) } }

    public func frame(_ index: Int, equals other: Frame) -> Bool {
        withBytes(index) { stored in other.withUnsafeBytes { $0.elementsEqual(stored) } }
    }

    public var frames: Message { (0..<count).map { self[$0] } }
}

/// The frames after a message's header: copies, or frames still in a ``PackedMessage``.
public enum MessageBody {
    case frames(ArraySlice<Frame>)
    case packed(PackedMessage, from: Int)

    public static var empty: MessageBody { .frames([]) }

    public var count: Int {
        switch self {
        case .frames(let frames): frames.count
        case .packed(let message, let from): message.count - from
        }
    }

    /// Each frame's bytes in turn, uncopied.
    public func forEachFrame(_ body: (UnsafeRawBufferPointer) -> Void) {
        switch self {
        case .frames(let frames):
            for frame in frames { frame.withUnsafeBytes(body) }
        case .packed(let message, let from):
            for index in from..<message.count { message.withBytes(index, body) }
        }
    }

    public var frames: [Frame] {
        switch self {
        case .frames(let frames): Array(frames)
        case .packed(let message, let from): (from..<message.count).map { message[$0] }
        }
    }
}
