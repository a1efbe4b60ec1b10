#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The supervisor's own messages, "[up] ..." on one line each (stderr under make up), in the
/// words deploy/scripts/lib.sh's info, warn and die use.
public struct Reporter: Sendable {
    let fd: Int32

    public init(fd: Int32) { self.fd = fd }

    public func info(_ message: String) { writeAll(fd, Array("[up] \(message)\n".utf8)) }
    public func warn(_ message: String) { writeAll(fd, Array("[up] warning: \(message)\n".utf8)) }
    public func error(_ message: String) { writeAll(fd, Array("[up] error: \(message)\n".utf8)) }
}

/// Runs a plan in the foreground: starts the stand-ins, the broker (then waits for
/// `broker --probe`), the services and the gateways, each one's output tagged with its name;
/// waits for GET /readyz; supervises (RESTART); and on a signal stops everything: SIGTERM,
/// SIGKILL after STOP_TIMEOUT (or at a second signal), then checks that no child is left.
///
/// Single-threaded: `run` blocks its caller until the end. Signals reach it through `signals`.
public final class Supervisor {
    /// A started process that has not been reaped yet.
    struct Child {
        let process: PlannedProcess
        let pid: pid_t
    }

    let plan: UpPlan
    let signals: SignalInbox
    let report: Reporter
    let pump: OutputPump
    private let clock = ContinuousClock()
    /// Whether the final check looks at every child of this process (the executable) or only at
    /// those this supervisor started (a test process has children of its own).
    private let checksEveryChild: Bool

    /// In start order.
    private var live: [Child] = []
    private var restarts: [(process: PlannedProcess, at: ContinuousClock.Instant)] = []
    /// Every pid ever started, for the final check.
    private var started: [pid_t] = []
    private var stopSignal: Int32?
    private var stopping = false
    private var forceKill = false

    /// `output` receives the processes' tagged lines, `report` the supervisor's messages.
    public init(plan: UpPlan, signals: SignalInbox, output: Int32, report: Reporter, checksEveryChild: Bool) throws {
        self.plan = plan
        self.signals = signals
        self.report = report
        self.checksEveryChild = checksEveryChild
        pump = try OutputPump(destination: output)
    }

    /// Runs until a signal (exit code 128 + its number), until every process has exited or a
    /// step fails (1). Everything started is stopped before it returns.
    public func run() -> Int32 {
        var code: Int32 = 1
        do {
            try startAll()
            if stopSignal == nil { waitUntilReady() }
            if stopSignal == nil { supervise() }
            if stopSignal == nil { report.warn("every process has exited") }
        } catch let error as UpError {
            report.error(error.message)
        } catch {
            report.error("\(error)")
        }
        if let stopSignal { code = 128 + stopSignal }
        shutdown()
        return code
    }

    // MARK: - Starting

    private func startAll() throws {
        for process in plan.processes where !isExecutableFile(process.executable) {
            throw UpError("executable \(process.executable) not found (build first, or set BACKPLANE_BIN_DIR)")
        }
        for claim in plan.ports where portInUse(claim.port) {
            throw UpError(claim.message)
        }
        for standIn in plan.standIns {
            try start(standIn)
            if let note = standIn.note { report.info(note) }
        }
        if let gazetteer = plan.gazetteer {
            let status = try runToEnd(
                "\(plan.root)/deploy/scripts/gazetteer.sh", [gazetteer], environment: plan.environment, output: .inherit)
            guard stopSignal != nil || status == .exited(0) else {
                throw UpError("could not make printing's gazetteer (deploy/scripts/gazetteer.sh)")
            }
        }
        for process in plan.processes {
            pause(0)
            guard stopSignal == nil else { return }
            let pid = try start(process)
            if process.name == "broker" { try waitForBroker(pid: pid, process: process) }
        }
    }

    @discardableResult
    private func start(_ process: PlannedProcess) throws -> pid_t {
        let (readEnd, writeEnd) = try makePipe()
        let pid: pid_t
        do {
            pid = try spawn(path: process.executable, environment: plan.environment(of: process), output: .pipe(writeEnd))
        } catch {
            close(readEnd)
            close(writeEnd)
            throw error
        }
        // From here the process alone holds the write end: the pump sees end-of-file when it exits.
        close(writeEnd)
        pump.add(readEnd, prefixer: LinePrefixer(name: process.name, width: plan.nameWidth))
        live.append(Child(process: process, pid: pid))
        started.append(pid)
        var line = "pid \(pid)"
        if let admin = process.adminPort { line += ", admin http://127.0.0.1:\(admin)" }
        report.info("started \(process.name) (\(line))")
        return pid
    }

    /// Services connect lazily and retry, so this is not required for correctness; it only keeps
    /// their first log lines free of connection noise. Times out with a warning.
    private func waitForBroker(pid: pid_t, process: PlannedProcess) throws {
        let deadline = clock.now.advanced(by: plan.brokerReadyTimeout.duration)
        while true {
            let status = try runToEnd(
                process.executable, ["--probe"], environment: plan.environment(of: process), output: .discard)
            if status == .exited(0) || stopSignal != nil { return }
            reapDead()
            guard live.contains(where: { $0.pid == pid }) else { return }  // reported as it exited
            if clock.now >= deadline {
                report.warn(
                    "broker --probe still fails after \(plan.brokerReadyTimeout.text)s; starting the services anyway")
                return
            }
            pause(0.2)
        }
    }

    /// Runs a helper (the probe, gazetteer.sh) to its end; a stop request kills it.
    private func runToEnd(_ path: String, _ arguments: [String], environment: [String: String], output: Output) throws
        -> ExitStatus
    {
        let pid = try spawn(path: path, arguments: arguments, environment: environment, output: output)
        started.append(pid)
        while true {
            if let status = reap(pid) { return status }
            pause(0.05)
            if stopSignal != nil {
                kill(pid, SIGKILL)
                return reap(pid, blocking: true)!
            }
        }
    }

    private func waitUntilReady() {
        let deadline = clock.now.advanced(by: plan.readyTimeout.duration)
        report.info("waiting for \(plan.readyURL) (up to \(plan.readyTimeout.text)s)")
        while httpStatus(port: plan.httpPort, path: "/readyz", timeout: 2) != 200 {
            guard stopSignal == nil else { return }
            reapDead()
            startDueRestarts()
            let gateway = plan.firstGateway
            if !live.contains(where: { $0.process.name == gateway }) && !restarts.contains(where: { $0.process.name == gateway }) {
                report.warn("the gateway exited before it was ready (Ctrl-C to stop the rest)")
                return
            }
            if clock.now >= deadline {
                report.warn(
                    "not ready: \(plan.readyURL) did not answer 200 within \(plan.readyTimeout.text)s; the processes keep running, see their logs above (Ctrl-C to stop)"
                )
                return
            }
            pause(0.5)
        }
        if let console = plan.operatorPort {
            report.info("the console: http://127.0.0.1:\(console)/console (this machine only)")
        }
        if plan.gateways > 1 {
            report.info(
                "Backplane is up: http://127.0.0.1:\(plan.httpPort) to :\(plan.httpPort + plan.gateways - 1) (\(plan.gateways) gateways)  (Ctrl-C to stop)"
            )
        } else {
            report.info("Backplane is up: http://127.0.0.1:\(plan.httpPort)  (Ctrl-C to stop)")
        }
    }

    // MARK: - Supervising

    private func supervise() {
        while stopSignal == nil, !live.isEmpty || !restarts.isEmpty {
            reapDead()
            startDueRestarts()
            pause(0.1)
        }
    }

    /// Collects every process that has exited, without blocking on live ones.
    private func reapDead() {
        for child in live {
            if let status = reap(child.pid) { exited(child, status) }
        }
    }

    /// A process ended. During shutdown that is expected; otherwise it is reported, and restarted
    /// under RESTART=always.
    private func exited(_ child: Child, _ status: ExitStatus) {
        live.removeAll { $0.pid == child.pid }
        let name = child.process.name
        if stopping {
            if status != .exited(0) && status != .killed(signal: SIGTERM) {
                report.info("\(name) stopped: \(status)")
            }
        } else if plan.restart == .always {
            report.warn(
                "\(name) (pid \(child.pid)) exited unexpectedly: \(status); restarting it in \(plan.restartDelay.text)s")
            restarts.append((child.process, clock.now.advanced(by: plan.restartDelay.duration)))
        } else {
            report.warn("\(name) (pid \(child.pid)) exited unexpectedly: \(status); \(live.count) other processes keep running")
        }
    }

    private func startDueRestarts() {
        let now = clock.now
        let due = restarts.filter { $0.at <= now }
        restarts.removeAll { $0.at <= now }
        for restart in due where stopSignal == nil && !stopping {
            do {
                try start(restart.process)
            } catch {
                report.warn("could not restart \(restart.process.name): \(error)")
            }
        }
    }

    /// Waits up to `seconds`, less when a signal arrives. The first signal asks for the shutdown,
    /// a later one (or any during the shutdown) for SIGKILL at once.
    private func pause(_ seconds: Double) {
        if seconds > 0 { _ = waitReadable(signals.descriptor, timeout: seconds) }
        for signal in signals.take() {
            if stopping || stopSignal != nil {
                forceKill = true
            } else {
                stopSignal = signal
                report.info("received SIG\(signalName(signal)): shutting down")
            }
        }
    }

    // MARK: - Stopping

    private func shutdown() {
        guard !stopping else { return }
        stopping = true
        restarts = []
        reapDead()
        if !live.isEmpty {
            report.info(
                "stopping \(live.count) processes (SIGTERM; SIGKILL after \(plan.stopTimeout.text)s, or at a second Ctrl-C)")
            for child in live { kill(child.pid, SIGTERM) }
        }
        let deadline = clock.now.advanced(by: plan.stopTimeout.duration)
        while !live.isEmpty, clock.now < deadline, !forceKill {
            pause(0.05)
            reapDead()
        }
        for child in live {
            report.warn("\(child.process.name) (pid \(child.pid)) still running: SIGKILL")
            kill(child.pid, SIGKILL)
            exited(child, reap(child.pid, blocking: true) ?? .killed(signal: SIGKILL))
        }
        // The pipes end once their processes have; one still open after 2 s is held by a grandchild.
        pump.drain(timeout: 2)
        pump.stop()
        verifyNoChildren()
    }

    /// The promise of Ctrl-C is that nothing is left behind.
    private func verifyNoChildren() {
        guard !started.isEmpty else { return }
        var left = childrenOf(getpid())
        if !checksEveryChild { left = left.filter(started.contains) }
        if left.isEmpty {
            report.info("all processes stopped; none left behind")
        } else {
            report.warn("processes still running after shutdown: \(left.map(String.init).joined(separator: " ")); killing them")
            for pid in left {
                kill(pid, SIGKILL)
                if started.contains(pid) { _ = reap(pid, blocking: true) }
            }
        }
    }
}
