import Contract

extension Civic {
    /// What a person stated about a bill, as an editor enters it: the words a stated position may be.
    public static let statedPositions = ["support", "oppose", "neutral", "undecided"]

    /// `set_stated_position`: an editor enters (or corrects) what a person stated about a bill,
    /// with the source and the day the editor checked it; role `civic_editor`. The person's
    /// `get_person` shows it at once (`kind: stated`).
    public enum SetStatedPosition: ServiceOperation {
        public static let service = ServiceName.civic
        public static let name = "set_stated_position"
        public struct Request: Codable, Sendable, Equatable {
            public var personId: String
            public var billId: String
            /// One of ``Civic/statedPositions``.
            public var position: String
            /// `YYYY-MM-DD`: the day it was stated; not after today.
            public var statedOn: String
            /// Where it was stated: an http or https URL.
            public var sourceUrl: String
            /// `YYYY-MM-DD`: the day the source was checked; from `statedOn` to today.
            public var checkedOn: String
            public init(
                personId: String, billId: String, position: String, statedOn: String, sourceUrl: String,
                checkedOn: String
            ) {
                self.personId = personId
                self.billId = billId
                self.position = position
                self.statedOn = statedOn
                self.sourceUrl = sourceUrl
                self.checkedOn = checkedOn
            }
        }
        public struct Reply: Codable, Sendable, Equatable {
            public var position: Position
            /// False when it replaced the person's stated position on that bill.
            public var created: Bool
            public init(position: Position, created: Bool) {
                self.position = position
                self.created = created
            }
        }
    }

    /// `delete_stated_position`: an editor removes a stated position; role `civic_editor`;
    /// not found when the person has none on that bill.
    public enum DeleteStatedPosition: ServiceOperation {
        public static let service = ServiceName.civic
        public static let name = "delete_stated_position"
        public struct Request: Codable, Sendable, Equatable {
            public var personId: String
            public var billId: String
            public init(personId: String, billId: String) {
                self.personId = personId
                self.billId = billId
            }
        }
        public typealias Reply = Empty
    }
}
