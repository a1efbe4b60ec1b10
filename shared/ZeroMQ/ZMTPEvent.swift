/// One unit ``ZMTPDecoder`` found in a peer's bytes. Byte buffers point into the decoder's input
/// and are valid only while the handler that receives them runs.
public enum ZMTPEvent {
    /// A valid 64-byte greeting: version 3.x with the NULL mechanism.
    case greeting(major: UInt8, minor: UInt8)
    /// The peer's READY, with a compatible `Socket-Type`: its properties by name (a name given
    /// twice keeps the last value). The peer's `Identity`, when it sends one, is at most 255 bytes.
    case ready(properties: [String: [UInt8]])
    /// A PING: the peer's TTL in tenths of a second and the context that PONG must return.
    case ping(ttl: UInt16, context: UnsafeRawBufferPointer)
    /// A command that means nothing to a ROUTER (PONG, SUBSCRIBE, CANCEL, or one it does not know).
    case command(name: UnsafeRawBufferPointer)
    /// A frame of a message; `more` when more frames of the same message follow.
    case frame(UnsafeRawBufferPointer, more: Bool)
}
