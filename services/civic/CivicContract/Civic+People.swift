import Contract

extension Civic {
    /// A fact about a person with where it comes from and when it was last checked.
    public struct Sourced: Codable, Sendable, Equatable {
        public var value: String
        public var sourceUrl: String
        /// RFC 3339.
        public var verifiedAt: String
        public init(value: String, sourceUrl: String, verifiedAt: String) {
            self.value = value
            self.sourceUrl = sourceUrl
            self.verifiedAt = verifiedAt
        }
    }

    /// A representative as lists show them.
    public struct PersonSummary: Codable, Sendable, Equatable {
        public var id: String
        public var name: String
        public var jurisdiction: Jurisdiction
        /// E.g. `Council Member`, `Senator`.
        public var office: String
        public var district: String?
        /// The chamber they sit in (Open States' `org_classification`); nil when the feed did not say.
        public var chamber: Chamber?
        public var party: String?
        public var photoUrl: String?
        public init(
            id: String, name: String, jurisdiction: Jurisdiction, office: String, district: String?,
            chamber: Chamber? = nil, party: String?, photoUrl: String?
        ) {
            self.id = id
            self.name = name
            self.jurisdiction = jurisdiction
            self.office = office
            self.district = district
            self.chamber = chamber
            self.party = party
            self.photoUrl = photoUrl
        }
    }

    /// A person's position on a bill: their vote, or a stated position with its source.
    public struct Position: Codable, Sendable, Equatable {
        public var billId: String
        public var billIdentifier: String
        public var billTitle: String
        /// `vote` or `stated`.
        public var kind: String
        /// The vote option (`yes`, `no`, ...) or the stated position (`support`, `oppose`, ...).
        public var position: String
        /// `YYYY-MM-DD`.
        public var date: String
        public var sourceUrl: String?
        /// `YYYY-MM-DD`: when a stated position was last checked against its source; nil for a vote.
        public var checkedOn: String?
        public init(
            billId: String, billIdentifier: String, billTitle: String, kind: String, position: String, date: String,
            sourceUrl: String?, checkedOn: String? = nil
        ) {
            self.billId = billId
            self.billIdentifier = billIdentifier
            self.billTitle = billTitle
            self.kind = kind
            self.position = position
            self.date = date
            self.sourceUrl = sourceUrl
            self.checkedOn = checkedOn
        }
    }

    /// One term of office: what the person held, for which district (nil: at large), from when to when.
    public struct Term: Codable, Sendable, Equatable {
        /// E.g. `Mayor`, `Council Member`.
        public var office: String
        public var district: String?
        /// `YYYY-MM-DD`.
        public var startDate: String
        /// `YYYY-MM-DD`; nil when the term has no set end.
        public var endDate: String?
        public init(office: String, district: String? = nil, startDate: String, endDate: String? = nil) {
            self.office = office
            self.district = district
            self.startDate = startDate
            self.endDate = endDate
        }
    }

    /// A representative with every fact sourced and their positions on active bills.
    public struct Person: Codable, Sendable, Equatable {
        public var summary: PersonSummary
        /// Each fact (`name`, `office`, `party`, `district`, `email`, `phone`, `address`, `photoUrl`)
        /// with its source and the date it was last verified.
        public var facts: [String: Sourced]
        public var positions: [Position]
        /// True when neither a vote nor a stated position is known ("position not available").
        public var positionsUnavailable: Bool
        /// The terms of office a local file gave, oldest first; nil when none was given (the feed's people).
        public var terms: [Term]?
        /// True for a person of a file marked as sample data (made up).
        public var sample: Bool?
        public init(
            summary: PersonSummary, facts: [String: Sourced], positions: [Position], positionsUnavailable: Bool,
            terms: [Term]? = nil, sample: Bool? = nil
        ) {
            self.summary = summary
            self.facts = facts
            self.positions = positions
            self.positionsUnavailable = positionsUnavailable
            self.terms = terms
            self.sample = sample
        }
    }

    /// `list_people`: representatives by jurisdiction, chamber and district, by name.
    public enum ListPeople: ServiceOperation {
        public static let service = ServiceName.civic
        public static let name = "list_people"
        public static let pageSize = PageSize(default: 50, max: 200)
        public struct Request: Codable, Sendable, Equatable, PagedRequest {
            public var jurisdiction: String?
            public var district: String?
            /// Only the members of this chamber (with `district`: one seat, not the two of a
            /// state's Assembly and Senate districts of the same number).
            public var chamber: Chamber?
            public var cursor: String?
            public var limit: Int?
            public init(
                jurisdiction: String? = nil, district: String? = nil, chamber: Chamber? = nil,
                page: PageRequest = .init()
            ) {
                self.jurisdiction = jurisdiction
                self.district = district
                self.chamber = chamber
                self.cursor = page.cursor
                self.limit = page.limit
            }
        }
        public typealias Reply = Page<PersonSummary>
    }

    /// `get_person`: one representative.
    public enum GetPerson: ServiceOperation {
        public static let service = ServiceName.civic
        public static let name = "get_person"
        public struct Request: Codable, Sendable, Equatable {
            public var id: String
            public init(id: String) { self.id = id }
        }
        public typealias Reply = Person
    }
}
