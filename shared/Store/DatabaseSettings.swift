import Foundation
import PostgresNIO

/// Where the PostgreSQL server is and how to log in, parsed from a `DATABASE_URL` of the form
/// `postgres://user:password@host:port/database?sslmode=disable` (`postgresql://` too).
///
/// User, password and database are percent-decoded. Query parameters: `sslmode`
/// (`disable`, `prefer`, `require`, `verify-full`; default `disable`) and `application_name`.
/// ``description`` and ``redactedURL`` never contain the password, so the settings can be logged.
public struct DatabaseSettings: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    /// The URL used when `DATABASE_URL` is unset or empty: the local development server.
    public static let defaultURL = "postgres://backplane:backplane@127.0.0.1:5432/backplane"

    /// Host name or IP address (an IPv6 address without its brackets).
    public var host: String
    /// TCP port, 5432 unless the URL names another.
    public var port: Int
    /// The role to log in as.
    public var username: String
    /// The role's password, if the URL has one. Never logged.
    public var password: String?
    /// The database name; PostgreSQL's rule (same as the user name) when the URL has none.
    public var database: String
    /// Whether and how to use TLS.
    public var sslMode: SSLMode
    /// The `application_name` reported to the server, if any.
    public var applicationName: String?

    /// Creates settings from their parts.
    public init(
        host: String, port: Int = 5432, username: String, password: String?, database: String,
        sslMode: SSLMode = .disable, applicationName: String? = nil
    ) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.sslMode = sslMode
        self.applicationName = applicationName
    }

    /// Parses a `postgres://` URL; throws ``StoreError/Code/invalidDatabaseURL`` with a message
    /// that names the faulty part (the message shows the URL with its password redacted).
    public init(url: String) throws {
        self = try DatabaseURLParser.parse(url)
    }

    /// Reads `DATABASE_URL` from `environment`, falling back to ``defaultURL`` when it is unset
    /// or empty.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> DatabaseSettings {
        let url = environment["DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultURL
        return try DatabaseSettings(url: url)
    }

    /// The URL with the password replaced by `***`, safe to print or log.
    public var redactedURL: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        let credentials = password == nil ? username : "\(username):***"
        var url = "postgres://\(credentials)@\(hostPart):\(port)/\(database)?sslmode=\(sslMode.rawValue)"
        if let applicationName { url += "&application_name=\(applicationName)" }
        return url
    }

    /// Same as ``redactedURL``.
    public var description: String { redactedURL }

    /// A mirror without the password, so `dump` and debuggers do not reveal it either.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "host": host, "port": port, "username": username,
                "password": password == nil ? "nil" : "***",
                "database": database, "sslMode": sslMode, "applicationName": applicationName as Any,
            ])
    }

    /// The configuration for a PostgresNIO `PostgresClient` connecting with these settings.
    public func clientConfiguration() -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database,
            tls: sslMode.clientTLS
        )
        if let applicationName {
            configuration.options.additionalStartupParameters.append(("application_name", applicationName))
        }
        return configuration
    }
}
