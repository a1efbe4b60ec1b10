#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The supervisor's inbox of stop requests: one byte per signal (its number) in a pipe, which
/// the supervisor polls while it waits for anything else. A signal handler may write to a pipe,
/// and nothing else it could do is as simple; tests send to it directly.
public final class SignalInbox: Sendable {
    private let readEnd: Int32
    private let writeEnd: Int32

    public init() throws {
        (readEnd, writeEnd) = try makePipe(nonBlockingRead: true)
        _ = fcntl(writeEnd, F_SETFL, fcntl(writeEnd, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// Readable when a signal waits to be taken.
    var descriptor: Int32 { readEnd }

    /// Asks the supervisor to stop as if `signal` had arrived (a second one: kill at once).
    public func send(_ signal: Int32) {
        var byte = UInt8(truncatingIfNeeded: signal)
        _ = write(writeEnd, &byte, 1)
    }

    /// The signals received since the last call, oldest first.
    func take() -> [Int32] {
        var signals: [Int32] = []
        var buffer = [UInt8](repeating: 0, count: 16)
        while true {
            let count = read(readEnd, &buffer, buffer.count)
            guard count > 0 else { return signals }
            signals += buffer[..<count].map(Int32.init)
        }
    }

    /// Routes SIGINT, SIGTERM and SIGHUP of this process to the inbox, and ignores SIGPIPE (a
    /// write to a closed `| tee` just fails) and SIGTTOU (so that output to a terminal whose
    /// foreground is another process group, under `stty tostop`, is written, not stopped).
    public func receiveSignals() {
        inboxDescriptor = writeEnd
        // A parent may have started this process with them blocked (a thread of a dispatch pool
        // blocks every signal, and posix_spawn passes the mask on).
        var set = sigset_t()
        sigemptyset(&set)
        for number in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&set, number) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        for number in [SIGINT, SIGTERM, SIGHUP] {
            _ = signal(number) { number in
                let saved = errno
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(inboxDescriptor, &byte, 1)
                errno = saved
            }
        }
        _ = signal(SIGPIPE, SIG_IGN)
        _ = signal(SIGTTOU, SIG_IGN)
    }
}

/// The inbox's write end for the signal handler, which can capture nothing. Set once, before the
/// handlers are installed, and only read afterwards.
nonisolated(unsafe) private var inboxDescriptor: Int32 = -1
