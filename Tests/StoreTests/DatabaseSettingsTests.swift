import Foundation
import Store
import Testing

@Suite("DATABASE_URL parsing")
struct DatabaseSettingsTests {
    @Test func defaultURLWhenUnsetOrEmpty() throws {
        for environment in [[:], ["DATABASE_URL": ""]] {
            let settings = try DatabaseSettings.fromEnvironment(environment)
            #expect(settings.host == "127.0.0.1")
            #expect(settings.port == 5432)
            #expect(settings.username == "backplane")
            #expect(settings.password == "backplane")
            #expect(settings.database == "backplane")
            #expect(settings.sslMode == .disable)
        }
    }

    @Test func fullURLWithPercentEncodingAndParameters() throws {
        let settings = try DatabaseSettings(
            url:
                "postgresql://us%40er:p%40ss%3Aw%2F0rd@db.example.com:6543/my%20db?sslmode=require&application_name=orders"
        )
        #expect(settings.username == "us@er")
        #expect(settings.password == "p@ss:w/0rd")
        #expect(settings.host == "db.example.com")
        #expect(settings.port == 6543)
        #expect(settings.database == "my db")
        #expect(settings.sslMode == .require)
        #expect(settings.applicationName == "orders")

        let configuration = settings.clientConfiguration()
        #expect(configuration.host == "db.example.com")
        #expect(configuration.port == 6543)
        #expect(configuration.username == "us@er")
        #expect(configuration.password == "p@ss:w/0rd")
        #expect(configuration.database == "my db")
    }

    @Test func defaultsForPortDatabaseAndPassword() throws {
        let settings = try DatabaseSettings(url: "postgres://alice@localhost")
        #expect(settings.port == 5432)
        #expect(settings.database == "alice")
        #expect(settings.password == nil)
        #expect(settings.description == "postgres://alice@localhost:5432/alice?sslmode=disable")
    }

    @Test func ipv6HostAndSSLModes() throws {
        let settings = try DatabaseSettings(url: "postgres://u:p@[::1]:5433/db?sslmode=verify-full")
        #expect(settings.host == "::1")
        #expect(settings.port == 5433)
        #expect(settings.sslMode == .verifyFull)
        #expect(settings.redactedURL.hasPrefix("postgres://u:***@[::1]:5433/db"))
        #expect(try DatabaseSettings(url: "postgres://u@h/d?sslmode=disable").sslMode == .disable)
        #expect(try DatabaseSettings(url: "postgres://u@h/d?sslmode=prefer").sslMode == .prefer)
    }

    @Test func passwordNeverInDescriptionOrDump() throws {
        let settings = try DatabaseSettings(url: "postgres://svc:s3cr%21t@db:5432/app")
        #expect(settings.password == "s3cr!t")
        for text in [settings.description, "\(settings)", String(reflecting: settings), settings.redactedURL] {
            #expect(!text.contains("s3cr"), "leaked in: \(text)")
            #expect(text.contains("***"))
        }
        var dumped = ""
        dump(settings, to: &dumped)
        #expect(!dumped.contains("s3cr"))
    }

    @Test(arguments: [
        ("mysql://u:p@h/db", "unsupported scheme 'mysql'"),
        ("localhost:5432/db", "postgres://"),
        ("postgres://u:p@h:99999/db", "port '99999'"),
        ("postgres://u:p@h:abc/db", "port 'abc'"),
        ("postgres://h/db", "no user name"),
        ("postgres://u:p@:5432/db", "no host"),
        ("postgres://u:p@h/db?sslmode=bogus", "sslmode 'bogus'"),
        ("postgres://u:p@h/db?timeout=3", "unknown parameter 'timeout'"),
        ("postgres://u%zz:p@h/db", "user name has a malformed percent-escape"),
        ("postgres://u:p@[::1/db", "no closing ']'"),
        ("postgres://u:p@h/a/b", "contains '/'"),
    ])
    func badURLsNameTheProblem(url: String, expected: String) throws {
        let error = try #require(throws: StoreError.self) { try DatabaseSettings(url: url) }
        #expect(error.code == .invalidDatabaseURL)
        #expect(error.message.contains(expected), "message was: \(error.message)")
    }

    @Test func errorsDoNotEchoThePassword() throws {
        let error = try #require(throws: StoreError.self) {
            try DatabaseSettings(url: "postgres://u:topsecret@h:0/db")
        }
        #expect(error.message.contains("port '0'"))
        #expect(!error.message.contains("topsecret"))
    }
}
