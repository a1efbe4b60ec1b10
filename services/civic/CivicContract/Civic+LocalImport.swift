import Contract

extension Civic {
    /// The local JSON format (`politimap-local/1`) for a body that has no API, e.g. a city
    /// council's agenda: the body's items (bills) and meetings, imported like a feed page.
    public struct LocalFile: Codable, Sendable, Equatable {
        /// Always `politimap-local/1`.
        public var format: String
        public var jurisdiction: LocalJurisdiction
        /// The body's name, e.g. `San Luis Obispo City Council`; default the jurisdiction's name.
        public var body: String?
        public var items: [LocalItem]?
        public var meetings: [LocalMeeting]?
        public init(
            format: String = "politimap-local/1", jurisdiction: LocalJurisdiction, body: String? = nil,
            items: [LocalItem]? = nil, meetings: [LocalMeeting]? = nil
        ) {
            self.format = format
            self.jurisdiction = jurisdiction
            self.body = body
            self.items = items
            self.meetings = meetings
        }
    }

    public struct LocalJurisdiction: Codable, Sendable, Equatable {
        /// An Open Civic Data jurisdiction id; its level is read from it (`place:` local, ...).
        public var id: String
        public var name: String
        public init(id: String, name: String) {
            self.id = id
            self.name = name
        }
    }

    /// A link to a document: staff report, minutes, ordinance text.
    public struct LocalDocument: Codable, Sendable, Equatable {
        public var url: String
        public var note: String?
        /// `YYYY-MM-DD`.
        public var date: String?
        public init(url: String, note: String? = nil, date: String? = nil) {
            self.url = url
            self.note = note
            self.date = date
        }
    }

    public struct LocalAction: Codable, Sendable, Equatable {
        /// `YYYY-MM-DD`.
        public var date: String
        public var description: String
        /// Open States action classifications (`introduction`, `referral-committee`, `passage`,
        /// `adoption`, `failure`, `withdrawal`, ...): the bill's status is read from them.
        public var classification: [String]?
        public init(date: String, description: String, classification: [String]? = nil) {
            self.date = date
            self.description = description
            self.classification = classification
        }
    }

    /// An agenda item that is a bill: an ordinance, a resolution, a staff item.
    public struct LocalItem: Codable, Sendable, Equatable {
        /// Stable and unique within the jurisdiction: re-importing the same id updates the item.
        public var id: String
        public var session: String
        /// How the body numbers it, e.g. `Item 7` or `Ordinance 1712`.
        public var identifier: String
        public var title: String
        public var summary: String?
        public var subjects: [String]?
        /// RFC 3339: when the item last changed (a newer time than stored is not required).
        public var updatedAt: String
        public var actions: [LocalAction]?
        /// Sponsors' names.
        public var sponsors: [String]?
        public var documents: [LocalDocument]?
        /// URLs the facts come from.
        public var sources: [String]?
        public init(
            id: String, session: String, identifier: String, title: String, summary: String? = nil,
            subjects: [String]? = nil, updatedAt: String, actions: [LocalAction]? = nil, sponsors: [String]? = nil,
            documents: [LocalDocument]? = nil, sources: [String]? = nil
        ) {
            self.id = id
            self.session = session
            self.identifier = identifier
            self.title = title
            self.summary = summary
            self.subjects = subjects
            self.updatedAt = updatedAt
            self.actions = actions
            self.sponsors = sponsors
            self.documents = documents
            self.sources = sources
        }
    }

    public struct LocalAgendaEntry: Codable, Sendable, Equatable {
        public var order: Int?
        public var description: String
        /// Ids of items (this file's or an earlier file's) the entry takes up.
        public var items: [String]?
        public init(order: Int? = nil, description: String, items: [String]? = nil) {
            self.order = order
            self.description = description
            self.items = items
        }
    }

    public struct LocalMeeting: Codable, Sendable, Equatable {
        /// Stable and unique within the jurisdiction.
        public var id: String
        public var name: String
        /// RFC 3339 with an offset, e.g. `2026-12-02T18:00:00-08:00`.
        public var startsAt: String
        public var endsAt: String?
        public var location: String?
        /// `confirmed` (default), `tentative`, `cancelled`, `passed`.
        public var status: String?
        public var agenda: [LocalAgendaEntry]?
        public var documents: [LocalDocument]?
        public var sources: [String]?
        public init(
            id: String, name: String, startsAt: String, endsAt: String? = nil, location: String? = nil,
            status: String? = nil, agenda: [LocalAgendaEntry]? = nil, documents: [LocalDocument]? = nil,
            sources: [String]? = nil
        ) {
            self.id = id
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

    /// `import_local`: a file of the local format, applied in one transaction (all or nothing);
    /// role `civic_editor`. Importing the same file again changes nothing; a new item appends
    /// `civic.bill_introduced` like a feed's new bill.
    public enum ImportLocal: ServiceOperation {
        public static let service = ServiceName.civic
        public static let name = "import_local"
        public typealias Request = LocalFile
        public struct Reply: Codable, Sendable, Equatable {
            public var billsNew: Int
            public var billsChanged: Int
            public var billsUnchanged: Int
            /// Meetings new or changed.
            public var meetings: Int
            public init(billsNew: Int, billsChanged: Int, billsUnchanged: Int, meetings: Int) {
                self.billsNew = billsNew
                self.billsChanged = billsChanged
                self.billsUnchanged = billsUnchanged
                self.meetings = meetings
            }
        }
    }
}
