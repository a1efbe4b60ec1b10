import CivicContract

/// The level of government of a jurisdiction, read from its Open Civic Data id (or, failing
/// that, the feed's classification): `place:` is local, `county:` county, `state:` state, the
/// country alone federal.
public enum JurisdictionLevel {
    public static func of(id: String, classification: String? = nil) -> Civic.Level {
        if id.contains("/place:") { return .local }
        if id.contains("/county:") { return .county }
        if id.contains("/state:") { return .state }
        switch classification {
        case "municipality": return .local
        case "county": return .county
        case "state": return .state
        default: return .federal
        }
    }
}
