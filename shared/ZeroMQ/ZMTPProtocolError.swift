/// A peer broke ZMTP 3.1 (RFC 37), as ``ZMTPDecoder`` found; only that peer's connection closes.
public struct ZMTPProtocolError: Error, CustomStringConvertible, Sendable, Hashable {
    /// What the peer did wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let raw: String
        /// The first byte is not 0xFF, or byte 9 lacks its low bit: not a ZMTP 3 greeting.
        public static let notZMTP = Code(raw: "not_zmtp")
        public static let unsupportedVersion = Code(raw: "unsupported_version")
        public static let unsupportedMechanism = Code(raw: "unsupported_mechanism")
        /// A reserved flag bit (0xF8) is set.
        public static let reservedFlags = Code(raw: "reserved_flags")
        public static let moreOnCommand = Code(raw: "more_on_command")
        public static let malformedCommand = Code(raw: "malformed_command")
        public static let messageBeforeReady = Code(raw: "message_before_ready")
        public static let expectedReady = Code(raw: "expected_ready")
        /// READY's properties overrun the command, or one has an empty name.
        public static let malformedMetadata = Code(raw: "malformed_metadata")
        /// `Socket-Type` missing, or not DEALER, REQ or ROUTER.
        public static let incompatibleSocketType = Code(raw: "incompatible_socket_type")
        /// `Identity` longer than 255 bytes.
        public static let identityTooLong = Code(raw: "identity_too_long")
        public static let repeatedReady = Code(raw: "repeated_ready")
        /// Not a 2-byte TTL plus at most 16 bytes of context.
        public static let malformedPing = Code(raw: "malformed_ping")
        public static let peerError = Code(raw: "peer_error")
        /// Larger than ``ZMTPDecoder/maxMessageSize``.
        public static let messageTooLarge = Code(raw: "message_too_large")
        /// The decoder's owner refused a unit (e.g. an identity another peer holds).
        public static let refused = Code(raw: "refused")
        public var description: String { raw }
    }

    public let code: Code
    /// Where in the peer's byte stream the offending unit starts.
    public let offset: Int

    public init(_ code: Code, at offset: Int) {
        self.code = code
        self.offset = offset
    }

    public var description: String { "ZMTP protocol error \(code) at byte \(offset)" }
}
