import CivicContract
import Contract
import Foundation

/// A stated position as the importer writes it: the person and the bill by their source ids.
public struct StatedPositionRecord: Sendable, Equatable {
    public var personSourceId: String
    public var billSourceId: String
    public var position: String
    public var statedOn: String
    public var sourceUrl: String
    public var checkedOn: String
    /// Where the file names the item (`positions[3].item`), for a refusal when it is not stored.
    public var itemField: String
}

extension LocalFormat {
    public static let maxMembers = 200
    public static let maxTerms = 20
    public static let maxPositions = 5000
    public static let maxVotes = 50
    public static let maxVoters = 100
    /// A roll call's options, as Open States writes them.
    public static let voteOptions = ["yes", "no", "abstain", "absent", "excused", "not voting"]
    public static let voteResults = ["pass", "fail"]

    /// The source id of a local member: apart from items' ids, stable across files.
    public static func memberSourceId(_ jurisdiction: String, _ id: String) -> String {
        "local:\(jurisdiction):member:\(id)"
    }

    /// The file's members as people of the body (chamber `legislature`): the office and district
    /// of the term that started last, every fact sourced by the member's first source and checked
    /// on `checkedOn`.
    static func members(_ file: Civic.LocalFile, jurisdiction: OpenStates.JurisdictionRef) throws(ServiceError)
        -> [PersonRecord]
    {
        let members = file.members ?? []
        guard members.count <= maxMembers else {
            throw ServiceError.invalidArgument("members holds at most \(maxMembers) members a file", field: "members")
        }
        var seen = Set<String>()
        var people: [PersonRecord] = []
        for (index, member) in members.enumerated() {
            let at = "members[\(index)]"
            let memberId = try text(member.id, "\(at).id", max: 200)
            guard seen.insert(memberId).inserted else {
                throw ServiceError.invalidArgument("\(at).id repeats an earlier member's id", field: "\(at).id")
            }
            guard (1...maxTerms).contains(member.terms.count) else {
                throw ServiceError.invalidArgument("\(at).terms holds 1-\(maxTerms) terms", field: "\(at).terms")
            }
            var terms: [Civic.Term] = []
            for (number, term) in member.terms.enumerated() {
                let place = "\(at).terms[\(number)]"
                let start = try day(term.startDate, "\(place).startDate")
                let end = try term.endDate.map { (value) throws(ServiceError) in try day(value, "\(place).endDate") }
                if let end, end < start {
                    throw ServiceError.invalidArgument(
                        "\(place).endDate must not be before its startDate", field: "\(place).endDate")
                }
                terms.append(
                    .init(
                        office: try text(term.office, "\(place).office", max: 100),
                        district: try term.district.map { (value) throws(ServiceError) in
                            try text(value, "\(place).district", max: 100)
                        }, startDate: start, endDate: end))
            }
            terms = terms.enumerated().sorted { ($0.element.startDate, $0.offset) < ($1.element.startDate, $1.offset) }
                .map(\.element)
            guard (1...20).contains(member.sources.count) else {
                throw ServiceError.invalidArgument("\(at).sources holds 1-20 URLs", field: "\(at).sources")
            }
            let links = try sources(member.sources, at)
            let checked = try day(member.checkedOn, "\(at).checkedOn")
            func optional(_ value: String?, _ name: String, max: Int) throws(ServiceError) -> String? {
                try value.map { (value) throws(ServiceError) in try text(value, "\(at).\(name)", max: max) }
            }
            let current = terms[terms.count - 1]
            let person = OpenStates.Person(
                id: memberSourceId(jurisdiction.id, memberId), name: try text(member.name, "\(at).name", max: 200),
                party: try optional(member.party, "party", max: 100),
                currentRole: .init(title: current.office, orgClassification: "legislature", district: current.district),
                jurisdiction: jurisdiction,
                image: try member.photoUrl.map { (value) throws(ServiceError) in try url(value, "\(at).photoUrl") },
                email: try optional(member.email, "email", max: 320), updatedAt: checked,
                offices: [
                    .init(
                        name: nil, voice: try optional(member.phone, "phone", max: 50),
                        address: try optional(member.address, "address", max: 500), classification: nil)
                ],
                sources: links)
            var record = try PersonRecord(person)
            record.terms = terms
            record.sample = file.sample == true
            people.append(record)
        }
        return people
    }

    /// An item's roll calls; each voter is a member of this file (`names`: source id → name).
    static func votes(
        _ votes: [Civic.LocalVote]?, _ at: String, jurisdiction: String, names: [String: String],
        organization: OpenStates.OrganizationRef
    ) throws(ServiceError) -> [OpenStates.VoteEvent] {
        let votes = votes ?? []
        guard votes.count <= maxVotes else {
            throw ServiceError.invalidArgument("\(at).votes holds at most \(maxVotes) roll calls", field: "\(at).votes")
        }
        var events: [OpenStates.VoteEvent] = []
        for (number, vote) in votes.enumerated() {
            let place = "\(at).votes[\(number)]"
            let motion = try text(vote.motion, "\(place).motion", max: 1000)
            let date = try day(vote.date, "\(place).date")
            guard voteResults.contains(vote.result) else {
                throw ServiceError.invalidArgument(
                    "\(place).result must be one of \(voteResults.joined(separator: ", "))", field: "\(place).result")
            }
            guard (1...maxVoters).contains(vote.votes.count) else {
                throw ServiceError.invalidArgument(
                    "\(place).votes holds 1-\(maxVoters) members' votes", field: "\(place).votes")
            }
            var voted = Set<String>()
            var members: [OpenStates.PersonVote] = []
            for (k, member) in vote.votes.enumerated() {
                let field = "\(place).votes[\(k)]"
                let source = memberSourceId(jurisdiction, member.member)
                guard let name = names[source] else {
                    throw ServiceError.invalidArgument(
                        "\(field).member must be the id of a member of this file", field: "\(field).member")
                }
                guard voted.insert(source).inserted else {
                    throw ServiceError.invalidArgument(
                        "\(field).member has already voted in this roll call", field: "\(field).member")
                }
                guard voteOptions.contains(member.option) else {
                    throw ServiceError.invalidArgument(
                        "\(field).option must be one of \(voteOptions.joined(separator: ", "))",
                        field: "\(field).option")
                }
                members.append(.init(option: member.option, voterName: name, voter: .init(id: source, name: name)))
            }
            let counts = Dictionary(members.map { ($0.option, 1) }, uniquingKeysWith: +)
                .map { OpenStates.VoteCount(option: $0.key, value: $0.value) }.sorted { $0.option < $1.option }
            events.append(
                .init(
                    id: "\(place)", motionText: motion, startDate: date, result: vote.result,
                    organization: organization, counts: counts, votes: members))
        }
        return events
    }

    /// The file's stated positions; each names a member of this file and an item of this or an
    /// earlier file (the importer refuses one it does not hold).
    static func positions(_ positions: [Civic.LocalPosition]?, jurisdiction: String, names: [String: String])
        throws(ServiceError) -> [StatedPositionRecord]
    {
        let positions = positions ?? []
        guard positions.count <= maxPositions else {
            throw ServiceError.invalidArgument(
                "positions holds at most \(maxPositions) positions a file", field: "positions")
        }
        var seen = Set<[String]>()
        var records: [StatedPositionRecord] = []
        for (index, stated) in positions.enumerated() {
            let at = "positions[\(index)]"
            let person = memberSourceId(jurisdiction, stated.member)
            guard names[person] != nil else {
                throw ServiceError.invalidArgument(
                    "\(at).member must be the id of a member of this file", field: "\(at).member")
            }
            let item = try text(stated.item, "\(at).item", max: 200)
            guard seen.insert([person, item]).inserted else {
                throw ServiceError.invalidArgument(
                    "\(at) repeats an earlier position of this member on this item", field: "\(at).item")
            }
            let checked = try StatedPositionRules.checked(
                position: stated.position, statedOn: stated.statedOn, sourceUrl: stated.sourceUrl,
                checkedOn: stated.checkedOn, at: "\(at).", today: nil)
            records.append(
                .init(
                    personSourceId: person, billSourceId: sourceId(jurisdiction, item), position: checked.position,
                    statedOn: checked.statedOn, sourceUrl: checked.sourceUrl, checkedOn: checked.checkedOn,
                    itemField: "\(at).item"))
        }
        return records
    }
}
