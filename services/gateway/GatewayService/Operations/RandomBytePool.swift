import Glibc
import Synchronization

/// Random bytes from the kernel (`/dev/urandom`), fetched 4 KiB at a time and handed out in
/// small pieces: a request id needs 16 bytes, and asking the kernel for each (two system calls
/// a request through `SystemRandomNumberGenerator`) was 2% of the gateway's CPU on `/healthz`.
/// The bytes are the kernel's own, never stretched by a generator of ours.
final class RandomBytePool: Sendable {
    private struct Pool {
        var bytes = [UInt8](repeating: 0, count: RandomBytePool.refillSize)
        var used = RandomBytePool.refillSize
    }

    static let refillSize = 4096
    private let pool = Mutex(Pool())

    /// The pool the request ids come from.
    static let shared = RandomBytePool()

    /// Sixteen random bytes.
    func next16() -> (UInt64, UInt64) {
        pool.withLock { pool in
            if pool.used + 16 > pool.bytes.count {
                Self.fill(&pool.bytes)
                pool.used = 0
            }
            defer { pool.used += 16 }
            return pool.bytes.withUnsafeBytes {
                ($0.loadUnaligned(fromByteOffset: pool.used, as: UInt64.self),
                 $0.loadUnaligned(fromByteOffset: pool.used + 8, as: UInt64.self))
            }
        }
    }

    /// `/dev/urandom`, opened once and kept open.
    private static let urandom: Int32 = open("/dev/urandom", O_RDONLY | O_CLOEXEC)

    /// Fills `bytes` from the kernel (`/dev/urandom`, which never blocks once the kernel's pool
    /// is seeded at boot); should it be unreadable, from the standard library's generator.
    private static func fill(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { buffer in
            var filled = 0
            while filled < buffer.count {
                let got = urandom < 0 ? -1 : read(urandom, buffer.baseAddress! + filled, buffer.count - filled)
                if got > 0 {
                    filled += got
                } else if got < 0, errno == EINTR {
                    continue
                } else {
                    var generator = SystemRandomNumberGenerator()
                    for index in filled..<buffer.count { buffer[index] = generator.next() }
                    filled = buffer.count
                }
            }
        }
    }
}
