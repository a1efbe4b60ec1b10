import Contract
import Foundation

/// The APNs topic (the iOS app's bundle id) of each of our apps, chosen by the app a device
/// registered from: a token is only valid for the topic of the app that asked for it, and APNs
/// answers any other with `DeviceTokenNotForTopic`.
public struct APNsTopics: Sendable, Equatable {
    /// The apps Backplane serves, by the name they register devices with.
    public static let apps = ["postcardbuddy", "navup", "gifter", "politimap", "tapwater"]

    /// `APNS_TOPICS` when unset: `app.<name>` for each of the five apps.
    public static let defaultSetting = apps.map { "\($0)=app.\($0)" }.joined(separator: ",")

    /// Bundle id by app name (lower case).
    public var byApp: [String: String]
    /// The bundle id of devices registered without an app (before apps said which); nil: none.
    public var withoutApp: String?

    /// Topics as given.
    public init(byApp: [String: String], withoutApp: String? = nil) {
        self.byApp = byApp
        self.withoutApp = withoutApp
    }

    /// Parses `app=bundle.id` pairs separated by commas (`navup=com.example.navup,...`);
    /// `invalid_argument` for a pair without `=`, an empty side or an app named twice.
    public init(parsing text: String, withoutApp: String? = nil) throws(ServiceError) {
        var byApp: [String: String] = [:]
        for pair in text.split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, !parts[1].contains(" ") else {
                throw ServiceError.invalidArgument("APNS_TOPICS takes app=bundle.id pairs separated by commas")
            }
            let app = parts[0].lowercased()
            guard byApp[app] == nil else { throw ServiceError.invalidArgument("APNS_TOPICS names \(app) twice") }
            byApp[app] = parts[1]
        }
        self.init(byApp: byApp, withoutApp: withoutApp)
    }

    /// The topic for a device of `app`; nil when none is configured.
    public func topic(for app: String?) -> String? {
        guard let app else { return withoutApp }
        return byApp[app.lowercased()]
    }
}
