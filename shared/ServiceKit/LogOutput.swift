import Foundation
import Glibc
import Synchronization

/// Where ``JSONLogHandler`` writes: standard output, through a buffer.
///
/// A busy process logs thousands of lines a second (the gateway's access log); one `write(2)`
/// per line costs a system call and a wake-up of whoever reads the pipe, each time. Lines are
/// therefore collected and written together: by a background thread every ``interval``, at once
/// when ``limit`` bytes are waiting, and at once with every line at `error` or above (so the
/// line that explains a crash is out before the crash). Whole lines only, never interleaved;
/// at exit (`exit(3)`) what is left is written. A `kill -9` loses at most ``interval`` of lines.
public final class LogOutput: Sendable {
    /// The process's standard output.
    public static let standard = LogOutput(fileDescriptor: STDOUT_FILENO)

    /// How often waiting lines are written.
    public static let interval: Duration = .milliseconds(50)
    /// Bytes that are written at once when this many wait.
    public static let limit = 64 * 1024

    private let fileDescriptor: Int32
    private let pending = Mutex<[UInt8]>([])
    private let writing = Mutex<Void>(())
    private let started = Atomic<Bool>(false)

    /// An output writing to `fileDescriptor` (a file or pipe the caller keeps open).
    public init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    /// Adds one line (its bytes end with a newline); `urgent` writes it, and all before it, now.
    public func write(_ line: String, urgent: Bool) {
        write(Array(line.utf8), urgent: urgent)
    }

    /// Adds one line given as UTF-8 bytes (ending with a newline).
    public func write(_ line: [UInt8], urgent: Bool) {
        startFlusherOnce()
        let due = pending.withLock { buffer in
            buffer.append(contentsOf: line)
            return urgent || buffer.count >= Self.limit
        }
        if due { flush() }
    }

    /// Writes what waits. One writer at a time, so batches leave in the order they were made
    /// and a batch longer than a pipe writes atomically (4 KiB) is never interleaved with another.
    public func flush() {
        writing.withLock { _ in
            let waiting: [UInt8] = pending.withLock { buffer in
                defer { buffer.removeAll(keepingCapacity: true) }
                return buffer
            }
            if !waiting.isEmpty { writeAll(waiting) }
        }
    }

    private func writeAll(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return  // the reader is gone; nothing more can be done with a log line
                }
            }
        }
    }

    private func startFlusherOnce() {
        guard !started.load(ordering: .relaxed), !started.exchange(true, ordering: .acquiringAndReleasing) else {
            return
        }
        if self === Self.standard { atexit { LogOutput.standard.flush() } }
        let thread = Thread { [self] in
            let pause = useconds_t(Self.interval.components.attoseconds / 1_000_000_000_000)
            while true {
                usleep(pause)
                flush()
            }
        }
        thread.name = "log-flush"
        thread.start()
    }
}
