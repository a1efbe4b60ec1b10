import Foundation
import ServiceKit

/// Where the importer reads and how often.
public struct FeedSettings: Sendable, Equatable {
    /// The Open States API v3 base URL (the stand-in feed locally).
    public var baseURL: String
    /// The API key sent as `X-API-KEY`; secret, never logged.
    public var apiKey: String?
    /// The jurisdictions to import (Open Civic Data ids).
    public var jurisdictions: [String]
    /// Items per page asked for.
    public var perPage: Int
    /// Tries of one page before the run fails (429s do not count).
    public var maxAttempts: Int
    /// 429s of one page waited out before the run fails.
    public var maxThrottles: Int
    public var timeoutSeconds: Int
    /// Seconds between scheduled imports.
    public var intervalSeconds: Int

    public init(
        baseURL: String, apiKey: String? = nil, jurisdictions: [String] = FeedSettings.defaultJurisdictions,
        perPage: Int = 20, maxAttempts: Int = 4, maxThrottles: Int = 20, timeoutSeconds: Int = 30,
        intervalSeconds: Int = 3600
    ) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.jurisdictions = jurisdictions
        self.perPage = perPage
        self.maxAttempts = maxAttempts
        self.maxThrottles = maxThrottles
        self.timeoutSeconds = timeoutSeconds
        self.intervalSeconds = intervalSeconds
    }

    /// PolitiMap 1.3: San Luis Obispo's council, the county's board, California, the US Congress.
    public static let defaultJurisdictions = [
        "ocd-jurisdiction/country:us/state:ca/place:san_luis_obispo/government",
        "ocd-jurisdiction/country:us/state:ca/county:san_luis_obispo/government",
        "ocd-jurisdiction/country:us/state:ca/government",
        "ocd-jurisdiction/country:us/government",
    ]

    public static let feedURL = Setting(
        "CIVIC_FEED_URL", default: "http://127.0.0.1:8095",
        "the Open States API v3 base URL civic imports from (make up starts a local stand-in here)")
    public static let feedAPIKey = Setting(
        "CIVIC_FEED_API_KEY", default: nil, "the Open States API key, sent as X-API-KEY", secret: true)
    public static let feedJurisdictions = Setting(
        "CIVIC_JURISDICTIONS", default: defaultJurisdictions.joined(separator: ","),
        "comma-separated Open Civic Data jurisdiction ids to import")
    public static let feedPageSize = Setting("CIVIC_FEED_PAGE_SIZE", default: "20", "items per feed page (1 to 100)")
    public static let importInterval = Setting(
        "CIVIC_IMPORT_INTERVAL_S", default: "3600", "seconds between scheduled imports (at most 86400); 0 turns them off")

    public static let pushGather = Setting(
        "CIVIC_PUSH_GATHER_S", default: "60",
        "seconds a new bill waits before its pushes are decided, so one import's bills for a device go together (0 to 3600)")

    public static let all = [feedURL, feedAPIKey, feedJurisdictions, feedPageSize, importInterval, pushGather]

    /// The settings of `environment`.
    public init(environment: ProcessEnvironment) throws {
        self.init(
            baseURL: try environment.required(Self.feedURL), apiKey: environment.string(Self.feedAPIKey),
            jurisdictions: try environment.required(Self.feedJurisdictions).split(separator: ",")
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty },
            perPage: try environment.int(Self.feedPageSize, in: 1...100),
            intervalSeconds: try environment.int(Self.importInterval, in: 0...86_400))
    }
}
