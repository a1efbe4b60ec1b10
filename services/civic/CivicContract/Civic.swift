import Contract

extension ServiceName {
    /// PolitiMap's bills, people, meetings, boundaries and new-bill subscriptions.
    public static let civic = ServiceName("civic")
}

/// Operations of the `civic` service (PolitiMap): bills by level of government, the people who
/// represent each jurisdiction, bodies' meetings and agendas, bookmarks and the importer that
/// keeps them fresh from an Open States API v3 feed.
public enum Civic {
    /// A level of government. Every jurisdiction has exactly one.
    public enum Level: String, Codable, Sendable, CaseIterable, Comparable {
        /// A city council (e.g. San Luis Obispo).
        case local
        /// A county board of supervisors.
        case county
        /// A state legislature.
        case state
        /// The US Congress.
        case federal

        public static func < (lhs: Level, rhs: Level) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    /// The chamber of a legislative body, as Open States' `org_classification` names it, so that
    /// a state's Assembly district 30 and Senate district 30 are told apart.
    public enum Chamber: String, Codable, Sendable, CaseIterable, Comparable {
        /// The upper chamber: a state Senate, the US Senate.
        case upper
        /// The lower chamber: a state Assembly or House, the US House of Representatives.
        case lower
        /// A body of one chamber: a unicameral legislature (Nebraska's), a city council, a county board.
        case legislature

        public static func < (lhs: Chamber, rhs: Chamber) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    /// Where a bill stands, derived from its action timeline.
    public enum BillStatus: String, Codable, Sendable, CaseIterable {
        case introduced
        case inCommittee = "in_committee"
        case passedOneChamber = "passed_one_chamber"
        case passed
        /// Signed into law, or adopted by a council or board.
        case enacted
        case vetoed
        case failed
    }

    /// A link with what it is.
    public struct Link: Codable, Sendable, Equatable {
        public var url: String
        public var note: String?
        public init(url: String, note: String? = nil) {
            self.url = url
            self.note = note
        }
    }

    /// A jurisdiction (a city, a county, a state, the country) as civic knows it.
    public struct Jurisdiction: Codable, Sendable, Equatable {
        /// Its Open Civic Data id, e.g. `ocd-jurisdiction/country:us/state:ca/government`.
        public var id: String
        public var name: String
        public var level: Level
        public init(id: String, name: String, level: Level) {
            self.id = id
            self.name = name
            self.level = level
        }
    }

    /// `list_jurisdictions`: every jurisdiction, most local first.
    public enum ListJurisdictions: ServiceOperation {
        public static let service = ServiceName.civic
        public static let name = "list_jurisdictions"
        public typealias Request = Empty
        public struct Reply: Codable, Sendable, Equatable {
            public var items: [Jurisdiction]
            public init(items: [Jurisdiction]) { self.items = items }
        }
    }
}
