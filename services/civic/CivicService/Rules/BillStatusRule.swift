import CivicContract

/// A bill's status from its action timeline (Open States action classifications), the last
/// decisive action winning: signed or adopted → enacted, vetoed, failed, passed by every chamber
/// it needs (or a unicameral body) → passed, passed one chamber, referred to committee, else
/// introduced.
public enum BillStatusRule {
    /// `actions` in timeline order; `chambers` is how many chambers must pass it (1 for a council).
    public static func status(actions: [[String]], chambers: Int) -> Civic.BillStatus {
        var status = Civic.BillStatus.introduced
        var passages = 0
        for classification in actions {
            let kinds = Set(classification)
            if kinds.contains("became-law") || kinds.contains("executive-signature") || kinds.contains("adoption") {
                return .enacted
            }
            if kinds.contains("executive-veto") {
                status = .vetoed
            } else if kinds.contains("failure") || kinds.contains("withdrawal") {
                status = .failed
            } else if kinds.contains("passage") {
                passages += 1
                status = passages >= chambers ? .passed : .passedOneChamber
            } else if kinds.contains("veto-override-passage") {
                return .enacted
            } else if kinds.contains("referral-committee") || kinds.contains("committee-passage") {
                if status == .introduced { status = .inCommittee }
            }
        }
        return status
    }

    /// How many chambers pass a bill at `level`: councils and boards have one.
    public static func chambers(at level: Civic.Level) -> Int {
        switch level {
        case .local, .county: 1
        case .state, .federal: 2
        }
    }
}
