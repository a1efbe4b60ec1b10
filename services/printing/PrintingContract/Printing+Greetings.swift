import Contract
import Foundation

// MARK: - greetings (PostcardBuddy 4.2.2.8-11)

extension Printing {
    /// An occasion greetings are written for.
    public enum GreetingOccasion: String, Codable, Sendable, CaseIterable {
        case holiday, birthday, thanks, travel, congratulations, seasonal

        /// The occasion named `text`; `invalid_argument` naming `field` and the occasion otherwise.
        public static func parse(_ text: String, field: String = "occasion") throws(ServiceError) -> GreetingOccasion {
            guard let occasion = GreetingOccasion(rawValue: text) else {
                throw ServiceError(
                    .invalidArgument,
                    "unknown occasion '\(text.prefix(40))'; one of \(allCases.map(\.rawValue).joined(separator: ", "))",
                    details: ["field": .string(field), "occasion": .string(String(text.prefix(40)))])
            }
            return occasion
        }
    }

    /// A greeting template: a text for an occasion in one language. A travel template that names
    /// the place (`usesPlace`) holds `{place}`, which suggestions fill in.
    public struct GreetingTemplate: Codable, Sendable, Hashable {
        /// Stable across languages: the same greeting in another language has the same id.
        public var id: String
        public var occasion: GreetingOccasion
        public var text: String
        public var usesPlace: Bool
        public init(id: String, occasion: GreetingOccasion, text: String, usesPlace: Bool) {
            self.id = id
            self.occasion = occasion
            self.text = text
            self.usesPlace = usesPlace
        }
    }

    /// The greeting templates of one language, of one occasion or all (`GET /v1/greetings/templates`).
    public enum ListGreetingTemplates: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "list_greeting_templates"

        public struct Request: Codable, Sendable, Hashable {
            /// One of ``GreetingOccasion``; nil for every occasion.
            public var occasion: String?
            /// `en`, `sv` or `af` (the gateway resolves `Accept-Language` into it); nil: English.
            public var lang: String?
            public init(occasion: String? = nil, lang: String? = nil) {
                self.occasion = occasion
                self.lang = lang
            }
        }

        public struct Reply: Codable, Sendable, Hashable {
            /// The language of every text, as also sent in `Content-Language`.
            public var language: GreetingLanguage
            public var items: [GreetingTemplate]
            public init(language: GreetingLanguage, items: [GreetingTemplate]) {
                self.language = language
                self.items = items
            }
        }
    }

    /// The populated place nearest a position: a GeoNames city of 15,000 people or more.
    public struct GreetingPlace: Codable, Sendable, Hashable {
        /// The GeoNames id.
        public var geonameId: Int
        public var name: String
        /// ISO 3166-1 alpha-2.
        public var countryCode: String
        /// From the position asked about to the place's centre, rounded to 100 m.
        public var distanceMeters: Int
        public init(geonameId: Int, name: String, countryCode: String, distanceMeters: Int) {
            self.geonameId = geonameId
            self.name = name
            self.countryCode = countryCode
            self.distanceMeters = distanceMeters
        }
    }

    /// Travel greetings for where a photo was taken (`GET /v1/greetings/suggestions`): the
    /// nearest place within ``maxDistanceMeters`` fills the travel templates that name one;
    /// with none that near, the travel templates that name no place. The position is used for
    /// the answer only: never stored, never logged.
    public enum SuggestGreetings: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "suggest_greetings"
        /// How far the nearest place may be to be named.
        public static let maxDistanceMeters = 100_000

        public struct Request: Codable, Sendable, Hashable {
            /// Degrees, -90 to 90; with `lon`, and not with `imageId`.
            public var lat: Double?
            /// Degrees, -180 to 180.
            public var lon: Double?
            /// An image of the caller's (or of the gallery) whose EXIF GPS position is used.
            public var imageId: String?
            public var lang: String?
            public init(lat: Double? = nil, lon: Double? = nil, imageId: String? = nil, lang: String? = nil) {
                self.lat = lat
                self.lon = lon
                self.imageId = imageId
                self.lang = lang
            }
        }

        public struct Reply: Codable, Sendable, Hashable {
            public var language: GreetingLanguage
            /// Absent when no place of 15,000 people is within ``maxDistanceMeters``.
            public var place: GreetingPlace?
            public var items: [GreetingTemplate]
            public init(language: GreetingLanguage, place: GreetingPlace?, items: [GreetingTemplate]) {
                self.language = language
                self.place = place
                self.items = items
            }
        }
    }

    /// A greeting a user saved for later cards.
    public struct SavedGreeting: Codable, Sendable, Hashable {
        public var id: String
        public var text: String
        public var occasion: GreetingOccasion?
        public var createdAt: Date
        public init(id: String, text: String, occasion: GreetingOccasion?, createdAt: Date) {
            self.id = id
            self.text = text
            self.occasion = occasion
            self.createdAt = createdAt
        }
    }

    /// The caller's saved greetings, newest first, a page at a time (`GET /v1/me/greetings`).
    public enum ListSavedGreetings: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "list_saved_greetings"
        public static let pageSize = PageSize(default: 50, max: 200)
        public typealias Request = PageRequest
        public typealias Reply = Page<SavedGreeting>
    }

    /// Saves a greeting of the caller's (`POST /v1/me/greetings`). Saving a text the caller has
    /// saved already answers that one (a retry makes no copy).
    public enum SaveGreeting: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "save_greeting"
        /// The longest text, in Unicode code points (as JSON Schema's `maxLength` counts).
        public static let maxTextLength = 500
        /// The most greetings one user keeps.
        public static let maxPerUser = 200

        public struct Request: Codable, Sendable, Hashable {
            public var text: String
            public var occasion: String?
            public init(text: String, occasion: String? = nil) {
                self.text = text
                self.occasion = occasion
            }
        }

        public typealias Reply = SavedGreeting
    }

    /// Deletes one of the caller's saved greetings (`DELETE /v1/me/greetings/{id}`); another's is 404.
    public enum DeleteSavedGreeting: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "delete_saved_greeting"

        public struct Request: Codable, Sendable, Hashable {
            public var id: String
            public init(id: String) { self.id = id }
        }

        public typealias Reply = Empty
    }
}
