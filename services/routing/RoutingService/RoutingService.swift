import Contract
import ServiceKit

/// The `routing` service: NavUP campus maps, positioning and routes.
public enum RoutingService {
    /// What the executable is and reads, for `--help`.
    public static let spec = ProcessSpec(
        name: "routing",
        summary: "MDP worker for NavUP campus maps, positioning and routes",
        settings: WorkerHost.settings,
        probeHelp: "check that a routing worker answers its health operation through the broker")

    /// Its migrations and operations; the health operation is built in.
    public static let definition = WorkerDefinition(service: .routing)
}
