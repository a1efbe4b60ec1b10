/// One unit ``ZMTPDecoder`` found. Buffers point into its input: valid only during the handler call.
public enum ZMTPEvent {
    case greeting(major: UInt8, minor: UInt8)
    /// A valid READY (compatible `Socket-Type`, `Identity` at most 255 bytes); a repeated name keeps the last.
    case ready(properties: [String: [UInt8]])
    /// TTL in tenths of a second; PONG returns `context`.
    case ping(ttl: UInt16, context: UnsafeRawBufferPointer)
    /// A command a ROUTER ignores (PONG, SUBSCRIBE, CANCEL, unknown).
    case command(name: UnsafeRawBufferPointer)
    case frame(UnsafeRawBufferPointer, more: Bool)
}
