import Contract
import NotifyContract

/// What notify knows about one kind: whether it is critical, which channels it uses, which
/// variables it needs, and its templates per locale.
public struct NotificationKind: Sendable {
    /// The kind's name, e.g. `order_failed`.
    public let name: Notify.Kind
    /// Critical kinds ignore preferences and quiet hours and cannot be switched off.
    public let critical: Bool
    /// The channels it goes out on before preferences.
    public let channels: [String]
    /// The variables a sender must give.
    public let variables: [String]
    /// Templates by locale; `en` is always present.
    public let templates: [String: Template]

    /// The template for `locale`, falling back to English.
    public func template(for locale: String) -> Template {
        templates[locale] ?? templates["en"]!
    }

    /// The locales there are templates for.
    public var locales: [String] { templates.keys.sorted() }

    /// Checks that every variable the kind needs is present and not empty.
    public func check(_ given: [String: String]) throws(ServiceError) {
        let missing = variables.filter { (given[$0] ?? "").isEmpty }
        guard missing.isEmpty else {
            throw ServiceError(
                .invalidArgument, "kind \(name) needs the variables \(missing.joined(separator: ", "))",
                details: ["field": .string("variables"), "missing": .array(missing.map { .string($0) })])
        }
    }
}
