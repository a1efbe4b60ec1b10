import Contract
import Dispatch
import Foundation
import Glibc
import Synchronization

/// Where ``JSONLogHandler`` writes: standard output, through a buffer and a writer thread.
///
/// A busy process logs thousands of lines a second (the gateway's access log); one `write(2)`
/// per line costs a system call and a wake-up of whoever reads the pipe, each time. Lines are
/// therefore collected and written together by a thread of their own: every ``interval``, and
/// sooner when ``limit`` bytes wait. Whole lines only, never interleaved; at exit (`exit(3)`)
/// what is left is written. A `kill -9` loses at most ``interval`` of lines.
///
/// **The thread that logs never waits for the reader.** A request's thread only appends to the
/// buffer. When the reader of the pipe falls behind (a log shipper paused, a disk in writeback)
/// and ``capacity`` bytes already wait, further lines are dropped and counted, and once the
/// reader catches up a `warning` line says how many were lost (`"dropped":"N"`), in the place of
/// the gap. A slow log reader therefore costs log lines, never request latency.
///
/// Lines at `error` and above (`urgent`) are the exception: each is written at once by the thread
/// that logs it, with every line before it, whatever the buffer holds, so the line that explains
/// a crash is out before the crash.
public final class LogOutput: Sendable {
    /// The process's standard output.
    public static let standard = LogOutput(fileDescriptor: STDOUT_FILENO)

    /// How often waiting lines are written.
    public static let interval: Duration = .milliseconds(50)
    /// The writer thread is woken early when this many bytes wait.
    public static let limit = 64 * 1024
    /// Bytes that may wait for a slow reader before lines are dropped: about 16,000 access lines,
    /// a second of the gateway's busiest rate.
    public static let defaultCapacity = 4 * 1024 * 1024

    /// What waits to be written, and what could not wait.
    private struct Waiting {
        var bytes: [UInt8] = []
        var dropped = 0
        /// The writer has been woken for this batch already (one wake-up per ``limit``).
        var writerCalled = false
    }

    private let fileDescriptor: Int32
    private let capacity: Int
    private let pause: Duration
    private let label: String
    private let waiting = Mutex(Waiting())
    /// Held while writing: the buffer being written, kept for reuse by the next batch.
    private let writing = Mutex<[UInt8]>([])
    private let wake = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)

    /// An output writing to `fileDescriptor` (a file or pipe the caller keeps open). At most
    /// `capacity` bytes wait for the reader; `interval` is how often waiting lines are written
    /// when fewer than ``limit`` bytes wait; `label` is the `service` of the line that reports
    /// dropped lines (the process's name unless given).
    public init(
        fileDescriptor: Int32, capacity: Int = LogOutput.defaultCapacity, interval: Duration = LogOutput.interval,
        label: String = ProcessInfo.processInfo.processName
    ) {
        precondition(capacity > 0, "a log output must be able to hold a line")
        self.fileDescriptor = fileDescriptor
        self.capacity = capacity
        self.pause = interval
        self.label = label
    }

    /// Adds one line (its bytes end with a newline); `urgent` writes it, and all before it, now.
    public func write(_ line: String, urgent: Bool) {
        write(Array(line.utf8), urgent: urgent)
    }

    /// Adds one line given as UTF-8 bytes (ending with a newline). Returns at once unless
    /// `urgent`; when ``capacity`` bytes already wait, a line that is not urgent is dropped
    /// (and counted).
    public func write(_ line: [UInt8], urgent: Bool) {
        startWriterOnce()
        if urgent {
            waiting.withLock { $0.bytes.append(contentsOf: line) }
            flush()
            return
        }
        let callWriter = waiting.withLock { waiting -> Bool in
            guard waiting.bytes.count + line.count <= capacity else {
                waiting.dropped += 1
                return false
            }
            waiting.bytes.append(contentsOf: line)
            guard waiting.bytes.count >= Self.limit, !waiting.writerCalled else { return false }
            waiting.writerCalled = true
            return true
        }
        if callWriter { wake.signal() }
    }

    /// Writes what waits, and a line for what was dropped, on the calling thread. One writer at
    /// a time, so batches leave in the order they were made and a batch longer than a pipe writes
    /// atomically (4 KiB) is never interleaved with another.
    public func flush() {
        writing.withLock { batch in
            let dropped = waiting.withLock { waiting -> Int in
                swap(&batch, &waiting.bytes)
                defer { (waiting.dropped, waiting.writerCalled) = (0, false) }
                return waiting.dropped
            }
            if !batch.isEmpty { writeAll(batch) }
            if dropped > 0 { writeAll(droppedLine(dropped)) }
            batch.removeAll(keepingCapacity: true)
        }
    }

    /// The line that stands for `count` lines lost to a reader that did not keep up.
    private func droppedLine(_ count: Int) -> [UInt8] {
        var line = JSONLogHandler.start(level: .warning, label: label, message: "log lines dropped: the log reader did not keep up")
        JSONLogHandler.appendKey("dropped", to: &line)
        line.appendJSONStringLiteral(String(count))
        line.append(contentsOf: "}\n".utf8)
        return line
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

    private func startWriterOnce() {
        guard !started.load(ordering: .relaxed), !started.exchange(true, ordering: .acquiringAndReleasing) else {
            return
        }
        if self === Self.standard { atexit { LogOutput.standard.flush() } }
        let microseconds = Int(pause.components.seconds) * 1_000_000 + Int(pause.components.attoseconds / 1_000_000_000_000)
        let thread = Thread { [self] in
            while true {
                _ = wake.wait(timeout: .now() + .microseconds(microseconds))
                flush()
            }
        }
        thread.name = "log-writer"
        thread.start()
    }
}
