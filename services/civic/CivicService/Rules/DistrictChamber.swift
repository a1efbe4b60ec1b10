import CivicContract

/// The chamber a district outline elects to, when its file does not say: a feature id that
/// names a Census TIGER/Line layer (as `make_boundaries.py --tiger` writes them) names it too —
/// `…/sldu:…` the upper chamber (the one chamber of a unicameral legislature: Nebraska, DC),
/// `…/sldl:…` the lower, `…/cd:…` the US House, the lower — and a city's or a county's district
/// elects to its council or board, a `legislature`. Nothing else is guessed: a state or federal
/// district whose id names no layer has no chamber here, and ``BoundaryFile`` asks for one.
public enum DistrictChamber {
    /// The jurisdictions whose legislature has one chamber: their `sldu` districts are `legislature`.
    public static let unicameral: Set<String> = [
        "ocd-jurisdiction/country:us/state:ne/government",
        "ocd-jurisdiction/country:us/district:dc/government",
        "ocd-jurisdiction/country:us/state:dc/government",
    ]

    /// The chamber the layer in feature id `id` names, or nil when it names none.
    public static func named(byId id: String, jurisdictionId: String) -> Civic.Chamber? {
        let parts = id.split(separator: "/")
        guard let last = parts.last, parts.count >= 2, let colon = last.firstIndex(of: ":") else { return nil }
        switch last[..<colon] {
        case "sldu": return unicameral.contains(jurisdictionId) ? .legislature : .upper
        case "sldl", "cd": return .lower
        default: return nil
        }
    }

    /// The chamber of a district outline with feature id `id` that gives none: the one its id
    /// names, else `legislature` for a local or county jurisdiction, else nil (unknown).
    public static func derived(id: String, jurisdictionId: String, level: Civic.Level) -> Civic.Chamber? {
        if let named = named(byId: id, jurisdictionId: jurisdictionId) { return named }
        return level <= .county ? .legislature : nil
    }
}
