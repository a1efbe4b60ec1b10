import Contract
import ServiceKit

/// The `notify` service: e-mail, push and in-app notifications.
public enum NotifyService {
    /// What the executable is and reads, for `--help`.
    public static let spec = ProcessSpec(
        name: "notify",
        summary: "MDP worker for e-mail, push and in-app notifications",
        settings: WorkerHost.settings,
        probeHelp: "check that a notify worker answers its health operation through the broker")

    /// Its migrations and operations; the health operation is built in.
    public static let definition = WorkerDefinition(service: .notify)
}
