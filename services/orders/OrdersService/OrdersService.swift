import Contract
import ServiceKit

/// The `orders` service: quotes, orders, payments and the ledger.
public enum OrdersService {
    /// What the executable is and reads, for `--help`.
    public static let spec = ProcessSpec(
        name: "orders",
        summary: "MDP worker for quotes, orders, payments and the ledger",
        settings: WorkerHost.settings,
        probeHelp: "check that a orders worker answers its health operation through the broker")

    /// Its migrations and operations; the health operation is built in.
    public static let definition = WorkerDefinition(service: .orders)
}
