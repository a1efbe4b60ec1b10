import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Puts a tag ("gateway  | ") in front of every line of one process's output. A line goes out as
/// soon as its newline arrives; a last line without one goes out at the end.
public struct LinePrefixer: Sendable {
    public let tag: [UInt8]
    private var pending: [UInt8] = []

    public init(tag: String) { self.tag = Array(tag.utf8) }

    /// The tag for `name` in a column `width` wide: "broker   | ".
    public init(name: String, width: Int) {
        self.init(tag: name.padding(toLength: max(width, name.count), withPad: " ", startingAt: 0) + " | ")
    }

    /// The whole lines `chunk` completes, tagged; the rest waits for its newline.
    public mutating func feed(_ chunk: some Collection<UInt8>) -> [UInt8] {
        pending += chunk
        guard let last = pending.lastIndex(of: UInt8(ascii: "\n")) else { return [] }
        var out: [UInt8] = []
        out.reserveCapacity(last + 1 + tag.count * 4)
        var start = 0
        while start <= last {
            let end = pending[start...last].firstIndex(of: UInt8(ascii: "\n"))!
            out += tag
            out += pending[start...end]
            start = end + 1
        }
        pending.removeSubrange(...last)
        return out
    }

    /// The last line, if it had no newline, tagged and ended with one.
    public mutating func finish() -> [UInt8] {
        guard !pending.isEmpty else { return [] }
        defer { pending = [] }
        return tag + pending + [UInt8(ascii: "\n")]
    }
}

/// Copies the output of every started process to one destination (the supervisor's stdout),
/// tagged with the process's name. One thread polls every pipe: it reads what a pipe holds (up
/// to 64 KiB) and writes its whole lines back in one write, so a process that logs in batches
/// costs one read and one write per batch.
///
/// A pipe is read until end-of-file, that is after its process's last (shutdown) lines, and
/// until every other holder of its write end (a grandchild) is gone too; `drain` bounds that wait.
public final class OutputPump: Sendable {
    private struct State {
        var added: [(fd: Int32, prefixer: LinePrefixer)] = []
        /// Pipes the thread reads, counting those added but not yet picked up.
        var open = 0
        var closeAll = false
        var finished = false
    }

    private let destination: Int32
    private let state = Mutex(State())
    private let wake: (read: Int32, write: Int32)

    /// Writes to `destination` (not closed here).
    public init(destination: Int32) throws {
        self.destination = destination
        wake = try makePipe(nonBlockingRead: true)
        let thread = Thread { [self] in run() }
        thread.name = "output-pump"
        thread.start()
    }

    deinit {
        close(wake.read)
        close(wake.write)
    }

    /// Reads `fd` (the read end of a process's pipe, then owned by the pump) with `prefixer`.
    func add(_ fd: Int32, prefixer: LinePrefixer) {
        state.withLock {
            $0.added.append((fd, prefixer))
            $0.open += 1
        }
        poke()
    }

    /// The number of pipes still open.
    public var open: Int { state.withLock { $0.open } }

    /// Waits up to `timeout` seconds for every pipe to reach end-of-file, then closes what is
    /// left (its last partial line written).
    public func drain(timeout: Double) {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .milliseconds(Int64(timeout * 1000)))
        while open > 0, clock.now < deadline {
            usleep(20_000)
        }
        state.withLock { $0.closeAll = true }
        poke()
        while open > 0 { usleep(5_000) }
    }

    /// Ends the pump's thread once its pipes are closed.
    public func stop() {
        drain(timeout: 0)
        state.withLock { $0.finished = true }
        poke()
    }

    private func poke() {
        var byte: UInt8 = 0
        _ = write(wake.write, &byte, 1)
    }

    private func run() {
        var streams: [Int32: LinePrefixer] = [:]
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let (added, closeAll, finished) = state.withLock { state in
                defer { state.added = [] }
                return (state.added, state.closeAll, state.finished)
            }
            for (fd, prefixer) in added { streams[fd] = prefixer }
            if closeAll {
                for fd in streams.keys { finish(fd, &streams) }
            }
            if finished { return }
            var entries = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            entries += streams.keys.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&entries, nfds_t(entries.count), -1)
            if ready <= 0 { continue }
            if entries[0].revents != 0 {
                var sink = [UInt8](repeating: 0, count: 64)
                while read(wake.read, &sink, sink.count) > 0 {}
            }
            for entry in entries.dropFirst() where entry.revents != 0 {
                let count = read(entry.fd, &buffer, buffer.count)
                if count > 0 {
                    let out = streams[entry.fd]!.feed(buffer[..<count])
                    if !out.isEmpty { writeAll(destination, out) }
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    finish(entry.fd, &streams)
                }
            }
        }
    }

    private func finish(_ fd: Int32, _ streams: inout [Int32: LinePrefixer]) {
        guard var prefixer = streams.removeValue(forKey: fd) else { return }
        let out = prefixer.finish()
        if !out.isEmpty { writeAll(destination, out) }
        close(fd)
        state.withLock { $0.open -= 1 }
    }
}
