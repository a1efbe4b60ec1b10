import Contract
import Foundation

/// Module codes as people type them (`cos301`, `COS 301`), in the form the timetable stores.
public enum ModuleCodeRules {
    /// Most modules a student takes (and an event names).
    public static let maximum = 40

    /// Codes normalised, without repeats, sorted; a malformed one is a 400.
    public static func normalised(_ codes: [String]) throws(ServiceError) -> [String] {
        guard codes.count <= maximum else {
            throw ServiceError.invalidArgument("at most \(maximum) modules", field: "codes")
        }
        var result: [String] = []
        for code in codes {
            guard let (normal, rest) = TimetableNames.moduleCode(prefixOf: code),
                rest.trimmingCharacters(in: .whitespaces).isEmpty
            else {
                throw ServiceError.invalidArgument(
                    "'\(code.prefix(30))' is not a module code like COS 301", field: "codes")
            }
            if !result.contains(normal) { result.append(normal) }
        }
        return result.sorted()
    }
}
