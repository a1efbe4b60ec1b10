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
        /// True when the file's people, items and positions are made up (a sample); its members are
        /// then answered with `sample: true`.
        public var sample: Bool?
        /// The body's members with their terms of office.
        public var members: [LocalMember]?
        /// Positions members stated on items, each with its source and the day it was checked.
        public var positions: [LocalPosition]?
        public init(
            format: String = "politimap-local/1", jurisdiction: LocalJurisdiction, body: String? = nil,
            items: [LocalItem]? = nil, meetings: [LocalMeeting]? = nil, sample: Bool? = nil,
            members: [LocalMember]? = nil, positions: [LocalPosition]? = nil
        ) {
            self.format = format
            self.jurisdiction = jurisdiction
            self.body = body
            self.items = items
            self.meetings = meetings
            self.sample = sample
            self.members = members
            self.positions = positions
        }
    }

    /// A term of office in a local file: `Mayor` or `Council Member`, say.
    public struct LocalTerm: Codable, Sendable, Equatable {
        public var office: String
        /// The district; absent for a seat elected at large.
        public var district: String?
        /// `YYYY-MM-DD`.
        public var startDate: String
        /// `YYYY-MM-DD`, not before `startDate`.
        public var endDate: String?
        public init(office: String, district: String? = nil, startDate: String, endDate: String? = nil) {
            self.office = office
            self.district = district
            self.startDate = startDate
            self.endDate = endDate
        }
    }

    /// A member of the body: the terms give the office (the term that started last is the current one).
    public struct LocalMember: Codable, Sendable, Equatable {
        /// Stable and unique within the jurisdiction; votes and positions name the member by it.
        public var id: String
        public var name: String
        public var party: String?
        public var email: String?
        public var phone: String?
        public var address: String?
        public var photoUrl: String?
        /// Oldest first; at least one.
        public var terms: [LocalTerm]
        /// URLs the facts come from; at least one (the first is every fact's source).
        public var sources: [String]
        /// `YYYY-MM-DD`: the day the facts were last checked against the sources.
        public var checkedOn: String
        public init(
            id: String, name: String, party: String? = nil, email: String? = nil, phone: String? = nil,
            address: String? = nil, photoUrl: String? = nil, terms: [LocalTerm], sources: [String], checkedOn: String
        ) {
            self.id = id
            self.name = name
            self.party = party
            self.email = email
            self.phone = phone
            self.address = address
            self.photoUrl = photoUrl
            self.terms = terms
            self.sources = sources
            self.checkedOn = checkedOn
        }
    }

    /// One member's vote in a roll call.
    public struct LocalMemberVote: Codable, Sendable, Equatable {
        /// A member id of this file.
        public var member: String
        /// `yes`, `no`, `abstain`, `absent`, `excused`, `not voting`.
        public var option: String
        public init(member: String, option: String) {
            self.member = member
            self.option = option
        }
    }

    /// A roll call on an item.
    public struct LocalVote: Codable, Sendable, Equatable {
        public var motion: String
        /// `YYYY-MM-DD`.
        public var date: String
        /// `pass` or `fail`.
        public var result: String
        public var votes: [LocalMemberVote]
        public init(motion: String, date: String, result: String, votes: [LocalMemberVote]) {
            self.motion = motion
            self.date = date
            self.result = result
            self.votes = votes
        }
    }

    /// A position a member stated on an item.
    public struct LocalPosition: Codable, Sendable, Equatable {
        /// A member id of this file.
        public var member: String
        /// An item id of this or an earlier file.
        public var item: String
        /// One of ``Civic/statedPositions``.
        public var position: String
        /// `YYYY-MM-DD`.
        public var statedOn: String
        public var sourceUrl: String
        /// `YYYY-MM-DD`, not before `statedOn`.
        public var checkedOn: String
        public init(
            member: String, item: String, position: String, statedOn: String, sourceUrl: String, checkedOn: String
        ) {
            self.member = member
            self.item = item
            self.position = position
            self.statedOn = statedOn
            self.sourceUrl = sourceUrl
            self.checkedOn = checkedOn
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
        /// Roll calls, each member named by their id in this file's `members`.
        public var votes: [LocalVote]?
        public init(
            id: String, session: String, identifier: String, title: String, summary: String? = nil,
            subjects: [String]? = nil, updatedAt: String, actions: [LocalAction]? = nil, sponsors: [String]? = nil,
            documents: [LocalDocument]? = nil, sources: [String]? = nil, votes: [LocalVote]? = nil
        ) {
            self.votes = votes
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
            /// Members new or changed.
            public var members: Int
            /// Stated positions new or changed.
            public var positions: Int
            public init(
                billsNew: Int, billsChanged: Int, billsUnchanged: Int, meetings: Int, members: Int = 0,
                positions: Int = 0
            ) {
                self.billsNew = billsNew
                self.billsChanged = billsChanged
                self.billsUnchanged = billsUnchanged
                self.meetings = meetings
                self.members = members
                self.positions = positions
            }
        }
    }
}
