import CivicContract
import Contract

extension BoundaryFile {
    /// A feature's `chamber` (`upper`, `lower` or `legislature`, Open States' `org_classification`):
    /// null or absent for a jurisdiction's whole outline. For a district's outline it may be left
    /// out when it can be told (``DistrictChamber``): from a TIGER layer in the feature's id, or
    /// `legislature` for a city's or county's district; a state or federal district whose id
    /// names no layer must give it. A given chamber must agree with the layer the id names, and a
    /// city's or county's district elects to its one council or board (`legislature`).
    static func chamber(
        _ value: JSONValue?, at path: String, id: String, jurisdictionId: String, level: Civic.Level,
        district: String?
    ) throws(Refusal) -> Civic.Chamber? {
        let at = "\(path).properties.chamber"
        let given: Civic.Chamber?
        switch value {
        case nil, .null?: given = nil
        case .string(let text)?:
            guard let chamber = Civic.Chamber(rawValue: text) else { throw Refusal(at, Self.chamberValues) }
            given = chamber
        default: throw Refusal(at, Self.chamberValues)
        }
        guard district != nil else {
            guard given == nil else {
                throw Refusal(at, "null or absent for a jurisdiction's whole outline (district null)")
            }
            return nil
        }
        guard let given else {
            guard let derived = DistrictChamber.derived(id: id, jurisdictionId: jurisdictionId, level: level) else {
                throw Refusal(
                    at,
                    "\(Self.chamberValues), required for a district of a state or federal jurisdiction whose id "
                        + "names no chamber (…/sldu:…, …/sldl:…, …/cd:…)")
            }
            return derived
        }
        if level <= .county, given != .legislature {
            throw Refusal(at, "legislature: a city's or county's districts elect to its one council or board")
        }
        if let named = DistrictChamber.named(byId: id, jurisdictionId: jurisdictionId), named != given {
            throw Refusal(at, "\(named.rawValue), the chamber the layer in the feature's id names")
        }
        return given
    }

    /// What a chamber may be.
    static let chamberValues = "upper, lower or legislature (Open States' org_classification)"
}
