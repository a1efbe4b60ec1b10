import Contract

extension Civic {
    /// A bill as lists show it.
    public struct BillSummary: Codable, Sendable, Equatable {
        public var id: String
        public var jurisdiction: Jurisdiction
        public var session: String
        /// As the body writes it: `AB 1234`, `H.R. 815`, `Item 4.b`.
        public var identifier: String
        public var title: String
        public var summary: String?
        public var subjects: [String]
        public var status: BillStatus
        /// `YYYY-MM-DD`, when known.
        public var introducedOn: String?
        public var latestActionOn: String?
        public var latestAction: String?
        /// RFC 3339: when the feed last changed it.
        public var updatedAt: String
        public init(
            id: String, jurisdiction: Jurisdiction, session: String, identifier: String, title: String,
            summary: String?, subjects: [String], status: BillStatus, introducedOn: String?,
            latestActionOn: String?, latestAction: String?, updatedAt: String
        ) {
            self.id = id
            self.jurisdiction = jurisdiction
            self.session = session
            self.identifier = identifier
            self.title = title
            self.summary = summary
            self.subjects = subjects
            self.status = status
            self.introducedOn = introducedOn
            self.latestActionOn = latestActionOn
            self.latestAction = latestAction
            self.updatedAt = updatedAt
        }
    }

    /// One step of a bill's timeline.
    public struct BillAction: Codable, Sendable, Equatable {
        /// `YYYY-MM-DD`.
        public var date: String
        public var description: String
        /// The chamber or body that acted.
        public var organization: String?
        /// Open States action classifications (`introduction`, `referral-committee`, `passage`, ...).
        public var classification: [String]
        public init(date: String, description: String, organization: String?, classification: [String]) {
            self.date = date
            self.description = description
            self.organization = organization
            self.classification = classification
        }
    }

    /// A sponsor, linked to the person when civic knows them.
    public struct Sponsor: Codable, Sendable, Equatable {
        public var name: String
        public var personId: String?
        public var primary: Bool
        public init(name: String, personId: String?, primary: Bool) {
            self.name = name
            self.personId = personId
            self.primary = primary
        }
    }

    /// One member's vote.
    public struct MemberVote: Codable, Sendable, Equatable {
        public var name: String
        public var personId: String?
        /// `yes`, `no`, `abstain`, `absent`, `not voting`, `excused`, `other`.
        public var option: String
        public init(name: String, personId: String?, option: String) {
            self.name = name
            self.personId = personId
            self.option = option
        }
    }

    /// A recorded vote: the motion, the tallies and each member's vote.
    public struct Vote: Codable, Sendable, Equatable {
        public var motion: String
        /// `YYYY-MM-DD`.
        public var date: String
        /// `pass` or `fail`.
        public var result: String
        public var organization: String?
        /// Option → count.
        public var counts: [String: Int]
        public var votes: [MemberVote]
        public init(
            motion: String, date: String, result: String, organization: String?, counts: [String: Int],
            votes: [MemberVote]
        ) {
            self.motion = motion
            self.date = date
            self.result = result
            self.organization = organization
            self.counts = counts
            self.votes = votes
        }
    }

    /// A version or other document of a bill.
    public struct Document: Codable, Sendable, Equatable {
        public var note: String
        public var date: String?
        public var links: [Link]
        public init(note: String, date: String?, links: [Link]) {
            self.note = note
            self.date = date
            self.links = links
        }
    }

    /// A bill with everything civic knows of it.
    public struct Bill: Codable, Sendable, Equatable {
        public var summary: BillSummary
        public var actions: [BillAction]
        public var sponsors: [Sponsor]
        public var votes: [Vote]
        public var versions: [Document]
        public var documents: [Document]
        public var sources: [Link]
        /// Whether an editor highlights it for its level.
        public var highlighted: Bool
        public init(
            summary: BillSummary, actions: [BillAction], sponsors: [Sponsor], votes: [Vote], versions: [Document],
            documents: [Document], sources: [Link], highlighted: Bool
        ) {
            self.summary = summary
            self.actions = actions
            self.sponsors = sponsors
            self.votes = votes
            self.versions = versions
            self.documents = documents
            self.sources = sources
            self.highlighted = highlighted
        }
    }

    /// How a bill list is ordered.
    public enum BillSort: String, Codable, Sendable, CaseIterable {
        /// Latest action first (the default).
        case recent
        /// Newest introduced first.
        case introduced
    }

    /// `list_bills`: bills filtered by level, jurisdiction, status, subject or topic, and text.
    public enum ListBills: ServiceOperation {
        public static let service = ServiceName.civic
        public static let name = "list_bills"
        public static let pageSize = PageSize(default: 20, max: 100)
        public struct Request: Codable, Sendable, Equatable, PagedRequest {
            public var level: String?
            public var jurisdiction: String?
            public var status: String?
            public var subject: String?
            /// A topic id (`international_students`): bills with any of its subjects.
            public var topic: String?
            /// Words to find in identifier, title and summary; a misspelt word still matches.
            public var q: String?
            /// RFC 3339: only bills the feed changed at or after it.
            public var updatedSince: String?
            public var sort: String?
            public var cursor: String?
            public var limit: Int?
            public init(
                level: String? = nil, jurisdiction: String? = nil, status: String? = nil, subject: String? = nil,
                topic: String? = nil, q: String? = nil, updatedSince: String? = nil, sort: String? = nil,
                page: PageRequest = .init()
            ) {
                self.level = level
                self.jurisdiction = jurisdiction
                self.status = status
                self.subject = subject
                self.topic = topic
                self.q = q
                self.updatedSince = updatedSince
                self.sort = sort
                self.cursor = page.cursor
                self.limit = page.limit
            }
        }
        public typealias Reply = Page<BillSummary>
    }

    /// `get_bill`: one bill by id.
    public enum GetBill: ServiceOperation {
        public static let service = ServiceName.civic
        public static let name = "get_bill"
        public struct Request: Codable, Sendable, Equatable {
            public var id: String
            public init(id: String) { self.id = id }
        }
        public typealias Reply = Bill
    }

    /// `highlighted_bills`: per level, the bills an editor pinned, then the most recently active.
    public enum HighlightedBills: ServiceOperation {
        public static let service = ServiceName.civic
        public static let name = "highlighted_bills"
        public static let perLevel = 5
        public struct Request: Codable, Sendable, Equatable {
            public var level: String?
            public init(level: String? = nil) { self.level = level }
        }
        public struct Reply: Codable, Sendable, Equatable {
            public var levels: [LevelHighlights]
            public init(levels: [LevelHighlights]) { self.levels = levels }
        }
        public struct LevelHighlights: Codable, Sendable, Equatable {
            public var level: Level
            public var bills: [BillSummary]
            public init(level: Level, bills: [BillSummary]) {
                self.level = level
                self.bills = bills
            }
        }
    }

    /// `set_highlight` (role `civic_editor`): pin or unpin a bill for its level.
    public enum SetHighlight: ServiceOperation {
        public static let service = ServiceName.civic
        public static let name = "set_highlight"
        public struct Request: Codable, Sendable, Equatable {
            public var billId: String
            public var highlighted: Bool
            public init(billId: String, highlighted: Bool) {
                self.billId = billId
                self.highlighted = highlighted
            }

            enum CodingKeys: String, CodingKey, CaseIterable { case billId, highlighted }

            // The API's body takes `highlighted` and nothing else.
            public init(from decoder: any Decoder) throws {
                try decoder.refuseMembers(otherThan: CodingKeys.self)
                let container = try decoder.container(keyedBy: CodingKeys.self)
                billId = try container.decode(String.self, forKey: .billId)
                highlighted = try container.decode(Bool.self, forKey: .highlighted)
            }
        }
        public typealias Reply = Empty
    }

    /// A topic: a named set of subjects (data, not code).
    public struct Topic: Codable, Sendable, Equatable {
        public var id: String
        public var name: String
        public var subjects: [String]
        public init(id: String, name: String, subjects: [String]) {
            self.id = id
            self.name = name
            self.subjects = subjects
        }
    }

    /// `list_topics`: every topic.
    public enum ListTopics: ServiceOperation {
        public static let service = ServiceName.civic
        public static let name = "list_topics"
        public typealias Request = Empty
        public struct Reply: Codable, Sendable, Equatable {
            public var items: [Topic]
            public init(items: [Topic]) { self.items = items }
        }
    }

    /// Event `civic.bill_introduced`: a bill civic had not seen before, appended in the import
    /// transaction that stored it.
    public struct BillIntroduced: Codable, Sendable, Equatable {
        public static let topic = "civic.bill_introduced"
        public var billId: String
        public var jurisdictionId: String
        public var level: Level
        public var identifier: String
        public var title: String
        public var subjects: [String]
        public init(
            billId: String, jurisdictionId: String, level: Level, identifier: String, title: String,
            subjects: [String]
        ) {
            self.billId = billId
            self.jurisdictionId = jurisdictionId
            self.level = level
            self.identifier = identifier
            self.title = title
            self.subjects = subjects
        }
    }
}
