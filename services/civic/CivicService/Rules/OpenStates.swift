import Foundation

/// The JSON shapes of the Open States API v3 (`/bills`, `/people`, `/events`) that the importer
/// reads, decoded with snake_case keys. Members the importer does not use are left out; members
/// an `include=` may leave out are optional.
public enum OpenStates {
    /// A decoder for the feed's snake_case JSON.
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }

    /// One page of a list: `{results, pagination}`.
    public struct Page<Item: Decodable & Sendable>: Decodable, Sendable {
        public var results: [Item]
        public var pagination: Pagination
    }

    public struct Pagination: Decodable, Sendable {
        public var perPage: Int
        public var page: Int
        public var maxPage: Int
        public var totalItems: Int
    }

    public struct JurisdictionRef: Decodable, Sendable {
        public var id: String
        public var name: String
        /// `country`, `state`, `county`, `municipality`.
        public var classification: String?
    }

    public struct OrganizationRef: Decodable, Sendable {
        public var name: String
        public var classification: String?
    }

    public struct Link: Decodable, Sendable {
        public var url: String
        public var note: String?
        public var mediaType: String?
    }

    public struct Abstract: Decodable, Sendable {
        public var abstract: String
        public var note: String?
    }

    public struct Action: Decodable, Sendable {
        public var organization: OrganizationRef?
        public var description: String
        public var date: String
        public var classification: [String]
        public var order: Int?
    }

    public struct PersonRef: Decodable, Sendable {
        public var id: String
        public var name: String
    }

    public struct Sponsorship: Decodable, Sendable {
        public var name: String
        public var entityType: String?
        public var primary: Bool
        public var classification: String?
        public var person: PersonRef?
    }

    public struct VoteCount: Decodable, Sendable {
        public var option: String
        public var value: Int
    }

    public struct PersonVote: Decodable, Sendable {
        public var option: String
        public var voterName: String
        public var voter: PersonRef?
    }

    public struct VoteEvent: Decodable, Sendable {
        public var id: String
        public var motionText: String
        public var startDate: String
        public var result: String
        public var organization: OrganizationRef?
        public var counts: [VoteCount]
        public var votes: [PersonVote]
    }

    public struct DocumentVersion: Decodable, Sendable {
        public var note: String
        public var date: String?
        public var links: [Link]
    }

    public struct Bill: Decodable, Sendable {
        public var id: String
        public var session: String
        public var jurisdiction: JurisdictionRef
        public var identifier: String
        public var title: String
        public var subject: [String]?
        public var createdAt: String
        public var updatedAt: String
        public var firstActionDate: String?
        public var latestActionDate: String?
        public var latestActionDescription: String?
        public var abstracts: [Abstract]?
        public var actions: [Action]?
        public var sponsorships: [Sponsorship]?
        public var votes: [VoteEvent]?
        public var versions: [DocumentVersion]?
        public var documents: [DocumentVersion]?
        public var sources: [Link]?
    }

    public struct CurrentRole: Decodable, Sendable {
        public var title: String
        public var orgClassification: String?
        public var district: String?
    }

    public struct Office: Decodable, Sendable {
        public var name: String?
        public var voice: String?
        public var address: String?
        public var classification: String?
    }

    public struct Person: Decodable, Sendable {
        public var id: String
        public var name: String
        public var party: String?
        public var currentRole: CurrentRole?
        public var jurisdiction: JurisdictionRef
        public var image: String?
        public var email: String?
        public var updatedAt: String
        public var offices: [Office]?
        public var sources: [Link]?
    }

    public struct Location: Decodable, Sendable {
        public var name: String?
    }

    public struct RelatedEntity: Decodable, Sendable {
        public var name: String?
        public var entityType: String?
        public var bill: BillRef?
    }

    public struct BillRef: Decodable, Sendable {
        public var id: String
        public var identifier: String?
    }

    public struct AgendaItem: Decodable, Sendable {
        public var description: String
        public var order: Int?
        public var relatedEntities: [RelatedEntity]?
    }

    public struct Participant: Decodable, Sendable {
        public var name: String
        public var entityType: String?
    }

    public struct Event: Decodable, Sendable {
        public var id: String
        public var name: String
        public var jurisdiction: JurisdictionRef
        public var startDate: String
        public var endDate: String?
        public var status: String?
        public var updatedAt: String?
        public var location: Location?
        public var participants: [Participant]?
        public var agenda: [AgendaItem]?
        public var documents: [DocumentVersion]?
        public var sources: [Link]?
    }
}
