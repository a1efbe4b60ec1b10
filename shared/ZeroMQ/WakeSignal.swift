import CZeroMQ
import Glibc

/// A Linux `eventfd` that lets any thread wake an I/O thread blocked in ``Poller/poll(timeoutMs:)``.
public final class WakeSignal: Sendable {
    /// The descriptor to add to a ``Poller``.
    public let fileDescriptor: Int32

    /// Creates a non-blocking eventfd.
    public init() {
        let fd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        precondition(fd >= 0, "eventfd failed: errno \(errno)")
        fileDescriptor = fd
    }

    deinit { CZeroMQ.close(fileDescriptor) }

    /// Wakes the poller. Cheap, thread safe, and coalescing: many signals, one wake-up.
    public func signal() {
        var one: UInt64 = 1
        _ = withUnsafeBytes(of: &one) { write(fileDescriptor, $0.baseAddress, 8) }
    }

    /// Clears pending signals; call after the poller reported the descriptor readable.
    public func drain() {
        var value: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &value) { read(fileDescriptor, $0.baseAddress, 8) }
    }
}
