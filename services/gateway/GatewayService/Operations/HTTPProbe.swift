import Contract
import Glibc

/// A minimal blocking HTTP/1.1 GET over loopback TCP, for `--probe` (no HTTP client library needed).
enum HTTPProbe {
    static func status(host: String, port: Int, path: String, timeoutSeconds: Int = 3) throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ServiceError(.internal, "socket() failed") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw ServiceError(.invalidArgument, "HTTP_HOST \(host) is not an IPv4 address")
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw ServiceError(.unavailable, "nothing listens on \(host):\(port)") }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 12 else { throw ServiceError(.unavailable, "no HTTP answer from \(host):\(port)") }
        let line = String(decoding: buffer[0..<count], as: UTF8.self)
        let parts = line.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else {
            throw ServiceError(.unavailable, "not an HTTP answer from \(host):\(port)")
        }
        return status
    }
}
