import CivicContract
import Contract

/// What a stated position must be, whether a file or an editor gives it (no I/O): one of
/// ``Civic/statedPositions``, stated on a day, with an http or https source checked on a day
/// from the day it was stated; an editor's days are not after today.
public enum StatedPositionRules {
    public struct Checked: Sendable, Equatable {
        public var position: String
        public var statedOn: String
        public var sourceUrl: String
        public var checkedOn: String
    }

    /// The checked values; a refusal names `<at>position`, `<at>statedOn`, `<at>sourceUrl` or
    /// `<at>checkedOn`. `today` (`YYYY-MM-DD`), when given, is the latest day either may be.
    public static func checked(
        position: String, statedOn: String, sourceUrl: String, checkedOn: String, at: String = "",
        today: String?
    ) throws(ServiceError) -> Checked {
        guard Civic.statedPositions.contains(position) else {
            throw ServiceError.invalidArgument(
                "\(at)position must be one of \(Civic.statedPositions.joined(separator: ", "))",
                field: "\(at)position")
        }
        let stated = try LocalFormat.day(statedOn, "\(at)statedOn")
        let url = try LocalFormat.url(sourceUrl, "\(at)sourceUrl")
        let checked = try LocalFormat.day(checkedOn, "\(at)checkedOn")
        if let today {
            guard stated <= today else {
                throw ServiceError.invalidArgument("\(at)statedOn must not be after today", field: "\(at)statedOn")
            }
            guard checked <= today else {
                throw ServiceError.invalidArgument("\(at)checkedOn must not be after today", field: "\(at)checkedOn")
            }
        }
        guard checked >= stated else {
            throw ServiceError.invalidArgument(
                "\(at)checkedOn must not be before statedOn", field: "\(at)checkedOn")
        }
        return .init(position: position, statedOn: stated, sourceUrl: url, checkedOn: checked)
    }
}
