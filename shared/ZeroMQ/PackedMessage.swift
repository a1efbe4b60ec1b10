/// A multipart message with all its frames in one buffer, as ``ZMTPRouter`` receives them: two
/// allocations per message however many frames it has, where a `[Frame]` makes one per frame.
public struct PackedMessage {
    /// The frames' bytes, one after the other.
    private var bytes: [UInt8] = []
    /// Where each frame ends in `bytes`.
    private var ends: [Int] = []

    /// An empty message with room for `byteCapacity` bytes in `frameCapacity` frames.
    public init(byteCapacity: Int = 0, frameCapacity: Int = 8) {
        bytes.reserveCapacity(byteCapacity)
        ends.reserveCapacity(frameCapacity)
    }

    /// The message holding `frames`.
    public init(_ frames: Message) {
        self.init(byteCapacity: frames.reduce(0) { $0 + $1.count }, frameCapacity: frames.count)
        for frame in frames { frame.withUnsafeBytes { append($0) } }
    }

    /// Adds a frame at the end.
    public mutating func append(_ frame: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: frame)
        ends.append(bytes.count)
    }

    /// How many frames it has.
    public var count: Int { ends.count }

    /// How many bytes its frames hold together.
    public var byteCount: Int { bytes.count }

    /// The size in bytes of frame `index`.
    public func size(_ index: Int) -> Int { ends[index] - (index == 0 ? 0 : ends[index - 1]) }

    /// Calls `body` with the bytes of frame `index`, without copying them.
    public func withBytes<T>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let start = index == 0 ? 0 : ends[index - 1]
        return try bytes.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[start..<ends[index]])) }
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
