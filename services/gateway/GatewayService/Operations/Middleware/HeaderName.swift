import HTTPTypes

/// Header names the middleware reads or writes on every request, made once. A generic type
/// cannot hold a stored static, and a computed `HTTPField.Name("...")!` checks and copies its
/// text each time it is read.
enum HeaderName {
    /// The request id, the client's or ours.
    static let requestId = HTTPField.Name("X-Request-Id")!
    /// The client addresses a trusted proxy adds.
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
    /// tus 1.0.0's version header.
    static let tusResumable = HTTPField.Name("Tus-Resumable")!
}
