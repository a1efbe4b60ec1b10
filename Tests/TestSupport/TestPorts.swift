import Glibc
import Synchronization

/// Loopback ports for processes a test starts, handed out so that nothing else can take one
/// between the test choosing it and the process binding it.
///
/// Asking the kernel for a free port (bind to 0, read it, close) and passing the number on races
/// with every outgoing connection on the machine: those take their source port from the same
/// ephemeral range, and with hundreds of connections a second during the system tests, a port
/// that was free a moment ago is sometimes a client's by the time the broker binds it. These
/// ports come from below the ephemeral range (`ip_local_port_range`), where the kernel never
/// picks one by itself, each handed out once per test process, and each checked free when it is.
public enum TestPorts {
    /// The first port of the range for this process: spread by process id, so two test processes
    /// at once are unlikely to start at the same place (and a port one of them holds is skipped).
    private static let next = Atomic<Int>(firstPort())

    private static let lowest = 10_000

    /// A loopback TCP port that no socket is bound to now and no other caller of this function in
    /// this process has been given.
    public static func free() throws(TestPortError) -> Int {
        let ceiling = ephemeralLow()
        for _ in 0..<2_000 {
            let candidate = next.wrappingAdd(1, ordering: .relaxed).oldValue
            let port = lowest + (candidate - lowest) % (ceiling - lowest)
            if isFree(port) { return port }
        }
        throw TestPortError()
    }

    private static func firstPort() -> Int {
        let span = ephemeralLow() - lowest
        return lowest + Int(getpid()) * 211 % span
    }

    /// The low end of the kernel's ephemeral port range (32768 when it cannot be read).
    private static func ephemeralLow() -> Int {
        guard let file = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r") else { return 32_768 }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 64)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return 32_768 }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let low = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap({ Int($0) }),
            low > lowest + 1_000
        else { return 32_768 }
        return low
    }

    private static func isFree(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

/// No free loopback port below the ephemeral range after 2,000 tries.
public struct TestPortError: Error, CustomStringConvertible {
    public var description: String { "no free loopback port below the ephemeral range" }
}
