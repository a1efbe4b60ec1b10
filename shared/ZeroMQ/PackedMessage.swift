/// A multipart message with all its frames in one buffer, as ``ZMTPRouter`` receives them: one
/// allocation per message of up to ``inlineFrames`` frames, where a `[Frame]` makes one per frame.
public struct PackedMessage {
    /// How many frames' ends are kept in the value itself; a longer message keeps the rest in an
    /// array. MDP's messages have 6 or 7 frames.
    public static let inlineFrames = 8

    /// The frames' bytes, one after the other.
    private var bytes: [UInt8] = []
    /// Where each of the first ``inlineFrames`` frames ends in `bytes`.
    private var inlineEnds = InlineArray<8, UInt32>(repeating: 0)
    /// Where each later frame ends.
    private var moreEnds: [UInt32] = []
    /// How many frames it has.
    public private(set) var count = 0

    /// An empty message with room for `byteCapacity` bytes in `frameCapacity` frames.
    public init(byteCapacity: Int = 0, frameCapacity: Int = 8) {
        bytes.reserveCapacity(byteCapacity)
        if frameCapacity > Self.inlineFrames { moreEnds.reserveCapacity(frameCapacity - Self.inlineFrames) }
    }

    /// The message holding `frames`.
    public init(_ frames: Message) {
        self.init(byteCapacity: frames.reduce(0) { $0 + $1.count }, frameCapacity: frames.count)
        for frame in frames { frame.withUnsafeBytes { append($0) } }
    }

    /// Adds a frame at the end. A message is at most 4 GiB (``ZMTPRouter`` refuses larger ones
    /// long before).
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

    /// Where frame `index` ends in `bytes`.
    private func end(_ index: Int) -> Int {
        Int(index < Self.inlineFrames ? inlineEnds[index] : moreEnds[index - Self.inlineFrames])
    }

    /// How many bytes its frames hold together.
    public var byteCount: Int { bytes.count }

    /// The size in bytes of frame `index`.
    public func size(_ index: Int) -> Int { end(index) - (index == 0 ? 0 : end(index - 1)) }

    /// Calls `body` with the bytes of frame `index`, without copying them.
    public func withBytes<T>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        precondition(index >= 0 && index < count, "frame \(index) of a message of \(count)")
        let start = index == 0 ? 0 : end(index - 1)
        let end = end(index)
        return try bytes.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[start..<end])) }
    }

    /// A copy of frame `index`.
    public subscript(index: Int) -> Frame { withBytes(index) { Array($0) } }

    /// Whether frame `index` holds exactly `other`.
    public func frame(_ index: Int, equals other: Frame) -> Bool {
        withBytes(index) { stored in other.withUnsafeBytes { $0.elementsEqual(stored) } }
    }

    /// Every frame, copied.
    public var frames: Message { (0..<count).map { self[$0] } }
}
