import CivicContract
import Contract
import Foundation

/// A representative as civic stores them, made from one Open States person (with the chamber of
/// their current role, so that same-numbered districts of two chambers stay apart): every fact carries
/// the feed's first source URL and the time the feed last verified it (its `updated_at`).
public struct PersonRecord: Sendable, Equatable {
    public var sourceId: String
    public var jurisdiction: Civic.Jurisdiction
    public var name: String
    public var office: String
    public var district: String?
    /// The chamber of `current_role.org_classification`; nil when the feed gives none, or a
    /// classification that is not a legislative chamber (`executive`, say).
    public var chamber: Civic.Chamber?
    public var party: String?
    public var photoUrl: String?
    public var verifiedAt: Date
    public var facts: [String: Civic.Sourced]
    /// The terms of office a local file gives (oldest first); the feed gives none.
    public var terms: [Civic.Term] = []
    /// True for a member of a local file marked as sample data.
    public var sample = false

    public init(_ person: OpenStates.Person) throws(ServiceError) {
        guard let updated = FeedDate.moment(person.updatedAt) else {
            throw ServiceError.invalidArgument("person \(person.id) has no readable updated_at", field: "updated_at")
        }
        sourceId = person.id
        jurisdiction = .init(
            id: person.jurisdiction.id, name: person.jurisdiction.name,
            level: JurisdictionLevel.of(id: person.jurisdiction.id, classification: person.jurisdiction.classification))
        name = person.name
        office = person.currentRole?.title ?? "Member"
        district = person.currentRole?.district
        chamber = person.currentRole?.orgClassification.flatMap(Civic.Chamber.init(rawValue:))
        party = person.party
        photoUrl = person.image
        verifiedAt = updated
        let source = person.sources?.first?.url ?? ""
        let verified = FeedDate.text(updated)
        let office = person.offices?.first
        let values: [(String, String?)] = [
            ("name", person.name), ("office", self.office), ("district", district), ("party", party),
            ("email", person.email), ("phone", office?.voice), ("address", office?.address), ("photoUrl", photoUrl),
        ]
        var facts: [String: Civic.Sourced] = [:]
        for case (let key, let value?) in values where !value.isEmpty {
            facts[key] = .init(value: value, sourceUrl: source, verifiedAt: verified)
        }
        self.facts = facts
    }

    public var fingerprint: String {
        // The chamber is in it so that people imported before it was kept are written again, with it.
        // Terms and the sample mark only when present, so the feed's people keep their fingerprints.
        Fingerprint.of(
            [
                name, office, district ?? "", chamber?.rawValue ?? "", party ?? "", photoUrl ?? "", Fingerprint.of(facts),
            ] + (terms.isEmpty ? [] : [Fingerprint.of(terms)]) + (sample ? ["sample"] : []))
    }
}
