import Contract
import ServiceKit

/// The `printing` service: postage, images and print-ready postcards.
public enum PrintingService {
    /// What the executable is and reads, for `--help`.
    public static let spec = ProcessSpec(
        name: "printing",
        summary: "MDP worker for postage, images and print-ready postcards",
        settings: WorkerHost.settings,
        probeHelp: "check that a printing worker answers its health operation through the broker")

    /// Its migrations and operations; the health operation is built in.
    public static let definition = WorkerDefinition(service: .printing)
}
