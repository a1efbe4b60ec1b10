#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a child ended, as waitpid reports it.
public enum ExitStatus: Sendable, Equatable, CustomStringConvertible {
    case exited(Int32)
    case killed(signal: Int32)

    init(waitStatus status: Int32) {
        let signal = status & 0x7f
        self = signal == 0 ? .exited((status >> 8) & 0xff) : .killed(signal: signal)
    }

    /// The shell's number for it: the exit code, or 128 + the signal.
    public var code: Int32 {
        switch self {
        case .exited(let code): code
        case .killed(let signal): 128 + signal
        }
    }

    /// "exit code 3", or "killed by SIGKILL (exit code 137)".
    public var description: String {
        switch self {
        case .exited(let code): "exit code \(code)"
        case .killed(let signal): "killed by SIG\(signalName(signal)) (exit code \(code))"
        }
    }
}

/// The name of a signal without its SIG prefix, as `kill -l` prints it.
public func signalName(_ signal: Int32) -> String {
    let names = [
        "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV", "USR2", "PIPE", "ALRM",
        "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "URG", "XCPU", "XFSZ", "VTALRM", "PROF",
        "WINCH", "IO", "PWR", "SYS",
    ]
    return (1...names.count).contains(Int(signal)) ? names[Int(signal) - 1] : String(signal)
}

/// Where a started process's stdout and stderr go.
enum Output {
    /// The write end of a pipe the supervisor reads.
    case pipe(Int32)
    /// The supervisor's own stdout and stderr.
    case inherit
    case discard
}

/// Starts `path` with `arguments` (argv[0] is `path` itself, so that `pgrep -f "^$BIN/name$"`
/// finds a process by its executable) in a process group of its own: a terminal's Ctrl-C reaches
/// the supervisor only, which stops the processes in order. Its stdin is /dev/null, its signal
/// mask empty and its dispositions the defaults (SIGPIPE aside: ignored, as the supervisor
/// ignores it), whatever the supervisor inherited. The supervisor's own descriptors close on exec.
func spawn(path: String, arguments: [String] = [], environment: [String: String], output: Output) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    switch output {
    case .pipe(let fd):
        posix_spawn_file_actions_adddup2(&actions, fd, 1)
        posix_spawn_file_actions_adddup2(&actions, fd, 2)
    case .inherit:
        break
    case .discard:
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
    }

    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    posix_spawnattr_setpgroup(&attributes, 0)
    var mask = sigset_t()
    sigemptyset(&mask)
    posix_spawnattr_setsigmask(&attributes, &mask)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGCHLD, SIGTTIN, SIGTTOU, SIGUSR1, SIGUSR2, SIGALRM] {
        sigaddset(&defaults, signal)
    }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(
        &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        argv.forEach { free($0) }
        envp.forEach { free($0) }
    }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
    guard result == 0 else {
        throw UpError("could not start \(path): \(String(cString: strerror(result)))")
    }
    return pid
}

/// The status of `pid` if it has ended (and reaps it), nil while it runs. Waits for that pid
/// only: a test process has children of its own that are none of ours.
func reap(_ pid: pid_t, blocking: Bool = false) -> ExitStatus? {
    var status: Int32 = 0
    while true {
        let result = waitpid(pid, &status, blocking ? 0 : WNOHANG)
        if result == pid { return ExitStatus(waitStatus: status) }
        if result == -1, errno == EINTR { continue }
        // ECHILD: reaped elsewhere or never ours; report it as gone rather than wait forever.
        if result == -1 { return .exited(-1) }
        return nil
    }
}

/// A pipe whose ends close on exec (the child gets its copy through dup2 only).
func makePipe(nonBlockingRead: Bool = false) throws -> (read: Int32, write: Int32) {
    var fds: [Int32] = [0, 0]
    // pipe2(O_CLOEXEC) is not visible to Swift; the supervisor starts processes from one thread.
    guard pipe(&fds) == 0 else { throw UpError("pipe: \(String(cString: strerror(errno)))") }
    _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
    _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
    if nonBlockingRead { _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK) }
    return (fds[0], fds[1])
}

/// Writes all of `bytes` to `fd`; gives up quietly when the reader is gone (EPIPE, SIGPIPE being
/// ignored): a closed terminal or `| tee` must not cut a shutdown short.
func writeAll(_ fd: Int32, _ bytes: some Collection<UInt8>) {
    let array = Array(bytes)
    array.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if written > 0 {
                offset += written
            } else if written == -1, errno == EINTR {
                continue
            } else {
                return
            }
        }
    }
}

/// Waits up to `timeout` seconds for `fd` to be readable (or closed); false on timeout.
func waitReadable(_ fd: Int32, timeout: Double) -> Bool {
    var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    let result = poll(&entry, 1, Int32(max(0, (timeout * 1000).rounded(.up))))
    return result > 0
}

/// A TCP connection to 127.0.0.1:`port`, or nil when none can be made within `timeout` seconds.
private func connectLocal(_ port: Int, timeout: Double) -> Int32? {
    #if canImport(Glibc)
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    #else
    let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { return nil }
    var limit = timeval(tv_sec: Int(timeout), tv_usec: .init((timeout - timeout.rounded(.down)) * 1_000_000))
    // On Linux SO_SNDTIMEO bounds connect() too.
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
    address.sin_addr = in_addr(s_addr: inet_addr("127.0.0.1"))
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else {
        close(fd)
        return nil
    }
    return fd
}

/// True when something accepts TCP connections on 127.0.0.1:`port`.
public func portInUse(_ port: Int) -> Bool {
    guard let fd = connectLocal(port, timeout: 1) else { return false }
    close(fd)
    return true
}

/// The status code of `GET path` on 127.0.0.1:`port`, or nil when there is no answer within
/// `timeout` seconds.
public func httpStatus(port: Int, path: String, timeout: Double) -> Int? {
    guard let fd = connectLocal(port, timeout: timeout) else { return nil }
    defer { close(fd) }
    writeAll(fd, Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8))
    var answer: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 512)
    while !answer.contains(UInt8(ascii: "\n")), answer.count < 4096 {
        let count = read(fd, &buffer, buffer.count)
        if count == -1, errno == EINTR { continue }
        guard count > 0 else { break }
        answer += buffer[..<count]
    }
    // "HTTP/1.1 200 OK"
    let fields = String(decoding: answer, as: UTF8.self).split(separator: " ", maxSplits: 2)
    guard fields.count >= 2, fields[0].hasPrefix("HTTP/") else { return nil }
    return Int(fields[1])
}

/// The pids of the processes whose parent is `parent`, from /proc (Linux; none elsewhere).
func childrenOf(_ parent: pid_t) -> [pid_t] {
    guard let folder = opendir("/proc") else { return [] }
    defer { closedir(folder) }
    var found: [pid_t] = []
    while let entry = readdir(folder) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        guard let pid = pid_t(name), let stat = readSmallFile("/proc/\(pid)/stat") else { continue }
        // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so cut at the last ")".
        guard let close = stat.lastIndex(of: ")") else { continue }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        if fields.count > 1, pid_t(fields[1]) == parent { found.append(pid) }
    }
    return found.sorted()
}

private func readSmallFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 1024)
    let count = read(fd, &buffer, buffer.count)
    guard count > 0 else { return nil }
    return String(decoding: buffer[..<count], as: UTF8.self)
}

/// True for a regular file this process may execute.
func isExecutableFile(_ path: String) -> Bool {
    var info = stat()
    guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return false }
    return access(path, X_OK) == 0
}
