import Contract

extension Civic {
    /// An item of a meeting's agenda, linked to bills when it names them.
    public struct AgendaItem: Codable, Sendable, Equatable {
        public var order: Int
        public var description: String
        public var billIds: [String]
        public init(order: Int, description: String, billIds: [String]) {
            self.order = order
            self.description = description
            self.billIds = billIds
        }
    }

    /// A body's meeting.
    public struct Meeting: Codable, Sendable, Equatable {
        public var id: String
        public var jurisdiction: Jurisdiction
        /// The body that meets, e.g. `San Luis Obispo City Council`.
        public var body: String
        public var name: String
        /// RFC 3339.
        public var startsAt: String
        public var endsAt: String?
        public var location: String?
        /// `confirmed`, `tentative`, `cancelled`, `passed`.
        public var status: String
        public var agenda: [AgendaItem]
        public var documents: [Document]
        public var sources: [Link]
        public init(
            id: String, jurisdiction: Jurisdiction, body: String, name: String, startsAt: String, endsAt: String?,
            location: String?, status: String, agenda: [AgendaItem], documents: [Document], sources: [Link]
        ) {
            self.id = id
            self.jurisdiction = jurisdiction
            self.body = body
            self.name = name
            self.startsAt = startsAt
            self.endsAt = endsAt
            self.location = location
            self.status = status
            self.agenda = agenda
            self.documents = documents
            self.sources = sources
        }
    }

    /// `list_meetings`: meetings starting in `[from, to)`, soonest first.
    public enum ListMeetings: ServiceOperation {
        public static let service = ServiceName.civic
        public static let name = "list_meetings"
        public static let pageSize = PageSize(default: 20, max: 100)
        public struct Request: Codable, Sendable, Equatable, PagedRequest {
            public var jurisdiction: String?
            /// RFC 3339.
            public var from: String?
            public var to: String?
            public var cursor: String?
            public var limit: Int?
            public init(jurisdiction: String? = nil, from: String? = nil, to: String? = nil, page: PageRequest = .init())
            {
                self.jurisdiction = jurisdiction
                self.from = from
                self.to = to
                self.cursor = page.cursor
                self.limit = page.limit
            }
        }
        public typealias Reply = Page<Meeting>
    }

    /// `next_meeting`: the next meeting of a body (its name, case-insensitive) from now.
    public enum NextMeeting: ServiceOperation {
        public static let service = ServiceName.civic
        public static let name = "next_meeting"
        public struct Request: Codable, Sendable, Equatable {
            public var body: String
            public init(body: String) { self.body = body }
        }
        public typealias Reply = Meeting
    }
}
