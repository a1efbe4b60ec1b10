import Contract

extension Civic {
    /// What a device wants to hear about: new bills of these jurisdictions, on these subjects.
    public struct SubscriptionFilter: Codable, Sendable, Equatable {
        /// Open Civic Data jurisdiction ids (1-20), e.g. `ocd-jurisdiction/country:us/state:ca/government`.
        public var jurisdictions: [String]
        /// Bill subjects (0-50); empty: every subject.
        public var subjects: [String]
        public init(jurisdictions: [String], subjects: [String] = []) {
            self.jurisdictions = jurisdictions
            self.subjects = subjects
        }
    }

    /// A subscription as its device sees it (never the push token).
    public struct Subscription: Codable, Sendable, Equatable {
        public var id: String
        public var platform: String
        public var app: String
        public var jurisdictions: [String]
        public var subjects: [String]
        /// RFC 3339.
        public var createdAt: String
        public var updatedAt: String
        public init(
            id: String, platform: String, app: String, jurisdictions: [String], subjects: [String], createdAt: String,
            updatedAt: String
        ) {
            self.id = id
            self.platform = platform
            self.app = app
            self.jurisdictions = jurisdictions
            self.subjects = subjects
            self.createdAt = createdAt
            self.updatedAt = updatedAt
        }
    }

    /// `create_subscription`: new-bill pushes for one device push token, no account. The token
    /// is a secret: it is stored to push to, never answered, logged or put in a URL. The same
    /// token and app again replaces that device's subscription (new filter, new secret).
    public enum CreateSubscription: ServiceOperation {
        public static let service = ServiceName.civic
        public static let name = "create_subscription"
        public struct Request: Codable, Sendable, Equatable {
            public var deviceToken: String
            /// `ios`, `android` or `web`.
            public var platform: String
            /// The app that registered the token (`politimap`), for its APNs topic.
            public var app: String
            /// `production` (default) or `sandbox` (a development build), for `ios`.
            public var apnsEnvironment: String?
            public var jurisdictions: [String]
            public var subjects: [String]
            public init(
                deviceToken: String, platform: String, app: String, apnsEnvironment: String? = nil,
                jurisdictions: [String], subjects: [String] = []
            ) {
                self.deviceToken = deviceToken
                self.platform = platform
                self.app = app
                self.apnsEnvironment = apnsEnvironment
                self.jurisdictions = jurisdictions
                self.subjects = subjects
            }

            enum CodingKeys: String, CodingKey, CaseIterable {
                case deviceToken, platform, app, apnsEnvironment, jurisdictions, subjects
            }

            // The API's body has no other members; `subjects` may be left out (every subject).
            public init(from decoder: any Decoder) throws {
                try decoder.refuseMembers(otherThan: CodingKeys.self)
                let container = try decoder.container(keyedBy: CodingKeys.self)
                deviceToken = try container.decode(String.self, forKey: .deviceToken)
                platform = try container.decode(String.self, forKey: .platform)
                app = try container.decode(String.self, forKey: .app)
                apnsEnvironment = try container.decodeIfPresent(String.self, forKey: .apnsEnvironment)
                jurisdictions = try container.decode([String].self, forKey: .jurisdictions)
                subjects = try container.decodeIfPresent([String].self, forKey: .subjects) ?? []
            }
        }
        /// The new subscription and its secret: `created` (201), or `created` false when the
        /// device's earlier subscription was replaced (200).
        public typealias Reply = Outcome<SubscriptionCreated>
    }

    /// A subscription as its device first sees it, with the secret.
    public struct SubscriptionCreated: Codable, Sendable, Equatable {
        public var id: String
        /// The only credential to change or end the subscription; shown once.
        public var secret: String
        public var subscription: Subscription
        public init(id: String, secret: String, subscription: Subscription) {
            self.id = id
            self.secret = secret
            self.subscription = subscription
        }
    }

    /// Which subscription, and its secret: the API sends the secret as the `X-Subscription-Secret`
    /// header (never in the URL), which the payload names it by.
    public struct SubscriptionRef: Codable, Sendable, Equatable {
        public var id: String
        public var secret: String
        public init(id: String, secret: String) {
            self.id = id
            self.secret = secret
        }

        enum CodingKeys: String, CodingKey {
            case id
            case secret = "X-Subscription-Secret"
        }
    }

    /// `update_subscription`: a new filter (and optionally a renewed push token); not found for
    /// an unknown id or a wrong secret alike.
    public enum UpdateSubscription: ServiceOperation {
        public static let service = ServiceName.civic
        public static let name = "update_subscription"
        public struct Request: Codable, Sendable, Equatable {
            public var id: String
            public var secret: String
            public var jurisdictions: [String]
            public var subjects: [String]
            /// A token the platform renewed; nil keeps the current one.
            public var deviceToken: String?
            public var apnsEnvironment: String?
            public init(
                id: String, secret: String, jurisdictions: [String], subjects: [String] = [],
                deviceToken: String? = nil, apnsEnvironment: String? = nil
            ) {
                self.id = id
                self.secret = secret
                self.jurisdictions = jurisdictions
                self.subjects = subjects
                self.deviceToken = deviceToken
                self.apnsEnvironment = apnsEnvironment
            }

            enum CodingKeys: String, CodingKey, CaseIterable {
                case id
                case secret = "X-Subscription-Secret"
                case jurisdictions, subjects, deviceToken, apnsEnvironment
            }

            // The API's body has no other members; `subjects` may be left out (every subject).
            public init(from decoder: any Decoder) throws {
                try decoder.refuseMembers(otherThan: CodingKeys.self)
                let container = try decoder.container(keyedBy: CodingKeys.self)
                id = try container.decode(String.self, forKey: .id)
                secret = try container.decode(String.self, forKey: .secret)
                jurisdictions = try container.decode([String].self, forKey: .jurisdictions)
                subjects = try container.decodeIfPresent([String].self, forKey: .subjects) ?? []
                deviceToken = try container.decodeIfPresent(String.self, forKey: .deviceToken)
                apnsEnvironment = try container.decodeIfPresent(String.self, forKey: .apnsEnvironment)
            }
        }
        public typealias Reply = Subscription
    }

    /// `delete_subscription`: no more pushes to that device; not found for an unknown id or a
    /// wrong secret alike.
    public enum DeleteSubscription: ServiceOperation {
        public static let service = ServiceName.civic
        public static let name = "delete_subscription"
        public typealias Request = SubscriptionRef
        public typealias Reply = Empty
    }
}
