import Contract
import ServiceKit

/// The `auth` service: accounts, sessions, roles and devices for all five apps.
public enum AuthService {
    /// What the executable is and reads, for `--help`.
    public static let spec = ProcessSpec(
        name: "auth",
        summary: "MDP worker for accounts, sessions, roles and devices for all five apps",
        settings: WorkerHost.settings,
        probeHelp: "check that a auth worker answers its health operation through the broker")

    /// Its migrations and operations; the health operation is built in.
    public static let definition = WorkerDefinition(service: .auth)
}
