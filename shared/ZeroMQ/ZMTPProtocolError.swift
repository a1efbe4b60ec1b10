/// A peer broke ZMTP 3.1 (RFC 37) as a ROUTER hears it: ``ZMTPDecoder`` found it, and the peer's
/// connection, only that one, is closed.
public struct ZMTPProtocolError: Error, CustomStringConvertible, Sendable, Hashable {
    /// What the peer did wrong, in terms a caller can count and branch on.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let raw: String
        /// The first byte is not 0xFF, or byte 9 lacks its low bit: not a ZMTP 3 greeting (an HTTP
        /// request, random bytes, a ZMTP 1.0 peer).
        public static let notZMTP = Code(raw: "not_zmtp")
        /// The greeting's major version is below 3.
        public static let unsupportedVersion = Code(raw: "unsupported_version")
        /// The greeting asks for a security mechanism other than NULL.
        public static let unsupportedMechanism = Code(raw: "unsupported_mechanism")
        /// A frame's flags set one of the reserved bits (0xF8).
        public static let reservedFlags = Code(raw: "reserved_flags")
        /// A command frame with the MORE flag.
        public static let moreOnCommand = Code(raw: "more_on_command")
        /// A command frame too short for its own name.
        public static let malformedCommand = Code(raw: "malformed_command")
        /// A message frame before the handshake ended.
        public static let messageBeforeReady = Code(raw: "message_before_ready")
        /// The first command after the greeting is not READY.
        public static let expectedReady = Code(raw: "expected_ready")
        /// READY's properties run past the command, or a property has an empty name.
        public static let malformedMetadata = Code(raw: "malformed_metadata")
        /// READY names no `Socket-Type`, or one a ROUTER cannot talk to (only DEALER, REQ and
        /// ROUTER can).
        public static let incompatibleSocketType = Code(raw: "incompatible_socket_type")
        /// READY's `Identity` is longer than 255 bytes.
        public static let identityTooLong = Code(raw: "identity_too_long")
        /// A second READY.
        public static let repeatedReady = Code(raw: "repeated_ready")
        /// A PING with less than its 2-byte TTL or more than 16 bytes of context.
        public static let malformedPing = Code(raw: "malformed_ping")
        /// The peer sent ERROR: it is about to close.
        public static let peerError = Code(raw: "peer_error")
        /// A frame or message larger than ``ZMTPDecoder/maxMessageSize``; found from the frame's
        /// header, before its body arrives.
        public static let messageTooLarge = Code(raw: "message_too_large")
        /// The decoder's owner refused a READY it was handed (e.g. an identity another peer holds).
        public static let refused = Code(raw: "refused")
        public var description: String { raw }
    }

    /// What went wrong.
    public let code: Code
    /// Where in the peer's byte stream the unit that broke the protocol starts (0 is the greeting's
    /// first byte).
    public let offset: Int

    /// An error of `code` at `offset` of the peer's stream.
    public init(_ code: Code, at offset: Int) {
        self.code = code
        self.offset = offset
    }

    public var description: String { "ZMTP protocol error \(code) at byte \(offset)" }
}
