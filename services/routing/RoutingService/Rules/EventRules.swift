import Contract
import Foundation
import RoutingContract

/// What a campus event sent by an admin must be.
public enum EventRules {
    /// The draft as stored: title, kind and times checked, module codes normalised, faculties trimmed.
    public static func validated(_ draft: Routing.EventDraft) throws(ServiceError) -> Routing.EventDraft {
        guard !draft.title.trimmingCharacters(in: .whitespaces).isEmpty, draft.title.count <= 200 else {
            throw ServiceError.invalidArgument("title must be 1-200 characters", field: "title")
        }
        guard Routing.eventKinds.contains(draft.kind) else {
            throw ServiceError.invalidArgument("kind must be sport or cultural", field: "kind")
        }
        guard draft.endsAt >= draft.startsAt else {
            throw ServiceError.invalidArgument("endsAt must not be before startsAt", field: "endsAt")
        }
        var draft = draft
        if let modules = draft.modules {
            guard modules.count <= 20 else {
                throw ServiceError.invalidArgument("at most 20 modules", field: "modules")
            }
            do { draft.modules = try ModuleCodeRules.normalised(modules) } catch {
                throw ServiceError.invalidArgument(error.message, field: "modules")
            }
        }
        if let faculties = draft.faculties {
            let trimmed = faculties.map { $0.trimmingCharacters(in: .whitespaces) }
            guard trimmed.count <= 20, trimmed.allSatisfy({ (1...200).contains($0.count) }) else {
                throw ServiceError.invalidArgument("at most 20 faculties of 1-200 characters", field: "faculties")
            }
            draft.faculties = trimmed
        }
        return draft
    }
}
