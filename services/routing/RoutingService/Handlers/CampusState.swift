import Synchronization

/// The campus every query reads, and the live crowd factors: replaced as a whole (a re-import,
/// an access-point change, a crowd report), so a query sees one consistent version and an
/// import never blocks routing.
public final class CampusState: Sendable {
    /// What one query reads.
    public struct Snapshot: Sendable {
        public let campus: Campus
        /// Crowd factor per access point of `campus` (index order).
        public let crowd: [Float]
    }

    private let current: Mutex<Snapshot?>

    /// Empty until the first campus is installed.
    public init() { current = Mutex(nil) }

    /// The current campus and crowds; nil before the first import.
    public var snapshot: Snapshot? { current.withLock { $0 } }

    /// Installs a new campus (crowd factors start neutral until recomputed).
    public func install(_ campus: Campus, crowd: [Float]? = nil) {
        let factors = crowd ?? [Float](repeating: 1, count: campus.accessPoints.count)
        current.withLock { $0 = Snapshot(campus: campus, crowd: factors) }
    }

    /// Replaces the crowd factors, if they belong to the campus still installed.
    public func updateCrowd(_ crowd: [Float], for campus: Campus) {
        current.withLock { snapshot in
            guard let installed = snapshot?.campus, installed === campus else { return }
            snapshot = Snapshot(campus: campus, crowd: crowd)
        }
    }
}
