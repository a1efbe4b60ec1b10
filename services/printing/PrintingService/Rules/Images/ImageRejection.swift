import Contract

/// Why an uploaded image was refused: a reason a client can act on and a sentence for a person.
public struct ImageRejection: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong with the upload.
    public struct Reason: RawRepresentable, Sendable, Hashable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The bytes are not the declared type (or not an image at all).
        public static let wrongType = Reason(rawValue: "wrong_type")
        /// The declared type is not JPEG, PNG or BMP.
        public static let unsupportedType = Reason(rawValue: "unsupported_type")
        /// More bytes than `IMAGE_MAX_BYTES`.
        public static let tooLarge = Reason(rawValue: "too_large")
        /// More pixels than `IMAGE_MAX_MEGAPIXELS` (a decompression bomb, or just too big).
        public static let tooManyPixels = Reason(rawValue: "too_many_pixels")
        /// The file ends before its image data does.
        public static let truncated = Reason(rawValue: "truncated")
        /// The image data cannot be decoded.
        public static let corrupt = Reason(rawValue: "corrupt")
    }

    public let reason: Reason
    public let message: String

    /// Creates a rejection.
    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { "\(reason.rawValue): \(message)" }

    /// The `invalid_argument` (400) a client sees, with `details.reason`.
    public var serviceError: ServiceError {
        ServiceError(.invalidArgument, message, details: ["reason": .string(reason.rawValue), "field": "body"])
    }
}
