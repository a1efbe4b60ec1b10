import Contract
import PrintingContract

/// A print job's status and the moves the printer may make.
///
/// `queued → ready` is the renderer's (or `failed` after its last attempt); the printer moves
/// `ready → printed → mailed`, and `failed` (with a reason) from any status before `mailed`.
enum PrintJobStatus: String, CaseIterable, Sendable {
    case queued
    case ready
    case printed
    case mailed
    case failed

    /// The statuses a printer's move to `self` may start from (empty: not a printer's move).
    var printerMovesFrom: [PrintJobStatus] {
        switch self {
        case .printed: [.ready]
        case .mailed: [.printed]
        case .failed: [.queued, .ready, .printed]
        case .queued, .ready: []
        }
    }

    /// The event a move to `self` publishes.
    var topic: String? {
        switch self {
        case .ready: Printing.Topic.jobReady
        case .printed: Printing.Topic.jobPrinted
        case .mailed: Printing.Topic.jobMailed
        case .failed: Printing.Topic.jobFailed
        case .queued: nil
        }
    }
}
