import Contract
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `--probe` against the process's own admin port: `GET /readyz` on 127.0.0.1, answered 200
/// within 3 s, or an error saying what was answered. A plain blocking socket: the probe is a
/// process of its own that lives for one request.
enum AdminProbe {
    /// The status code and body of `GET path` on 127.0.0.1:`port`.
    static func get(port: Int, path: String, timeoutSeconds: Int = 3) throws -> (status: Int, body: String) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ServiceError(.unavailable, "probe: no socket (errno \(errno))") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            throw ServiceError(.unavailable, "probe: nothing answers on the admin port \(port) (errno \(errno))")
        }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        guard send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else {
            throw ServiceError(.unavailable, "probe: could not send to the admin port \(port)")
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        // Until the server closes, or the whole body its Content-Length announces is in: a probe
        // must not wait out its timeout on a connection kept alive.
        while answer.count < 65_536 {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            answer.append(contentsOf: buffer[0..<count])
            if Self.complete(answer) { break }
        }
        let text = String(decoding: answer, as: UTF8.self)
        // "HTTP/1.1 200 OK\r\n..."
        let parts = text.prefix(while: { $0 != "\r" }).split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else {
            throw ServiceError(.unavailable, "probe: the admin port \(port) did not answer HTTP within \(timeoutSeconds) s")
        }
        let body = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
        return (status, body)
    }

    /// Whether `answer` holds the head and as many body bytes as its Content-Length says.
    static func complete(_ answer: [UInt8]) -> Bool {
        let text = String(decoding: answer, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return false }
        let head = text[..<end.lowerBound].lowercased()
        guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
            let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        else { return false }
        return text[end.upperBound...].utf8.count >= length
    }
}
