/// Parses `postgres://user:password@host:port/database?params` by hand, so that every error can
/// say exactly which part is wrong without echoing the password.
enum DatabaseURLParser {
    static func parse(_ url: String) throws -> DatabaseSettings {
        let shown = redact(url)
        func fail(_ why: String) -> StoreError {
            StoreError(.invalidDatabaseURL, "DATABASE_URL '\(shown)' is invalid: \(why)")
        }

        guard let schemeEnd = url.range(of: "://") else {
            throw fail("expected it to start with postgres:// or postgresql://")
        }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "postgres" || scheme == "postgresql" else {
            throw fail("unsupported scheme '\(scheme)', expected postgres or postgresql")
        }
        var rest = Substring(url[schemeEnd.upperBound...])

        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }

        var userInfo: Substring?
        if let at = rest.lastIndex(of: "@") {
            userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
        }

        var databasePart: Substring?
        if let slash = rest.firstIndex(of: "/") {
            databasePart = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }

        let (host, port) = try hostAndPort(rest, fail: fail)

        guard let userInfo, !userInfo.isEmpty else {
            throw fail("no user name (expected user[:password]@ before the host)")
        }
        let username: String
        var password: String?
        if let colon = userInfo.firstIndex(of: ":") {
            username = try decode(userInfo[..<colon], part: "user name", fail: fail)
            password = try decode(userInfo[userInfo.index(after: colon)...], part: "password", fail: fail)
        } else {
            username = try decode(userInfo, part: "user name", fail: fail)
        }
        guard !username.isEmpty else { throw fail("the user name is empty") }

        var database = username
        if let databasePart, !databasePart.isEmpty {
            guard !databasePart.contains("/") else {
                throw fail("the database name '\(databasePart)' contains '/'")
            }
            database = try decode(databasePart, part: "database name", fail: fail)
        }

        var settings = DatabaseSettings(
            host: host, port: port, username: username, password: password, database: database
        )
        try applyParameters(query, to: &settings, fail: fail)
        return settings
    }

    private static func hostAndPort(
        _ text: Substring, fail: (String) -> StoreError
    ) throws -> (String, Int) {
        var host: Substring
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else {
                throw fail("the IPv6 host '\(text)' has no closing ']'")
            }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw fail("unexpected '\(after)' after the host") }
                portText = after.dropFirst()
            }
        } else if let colon = text.firstIndex(of: ":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        } else {
            host = text
        }
        guard !host.isEmpty else { throw fail("no host name") }
        var port = 5432
        if let portText {
            guard let value = Int(portText), (1...65_535).contains(value) else {
                throw fail("the port '\(portText)' is not a number from 1 to 65535")
            }
            port = value
        }
        return (String(host), port)
    }

    private static func applyParameters(
        _ query: Substring, to settings: inout DatabaseSettings, fail: (String) -> StoreError
    ) throws {
        for pair in query.split(separator: "&") where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = try decode(parts[0], part: "parameter name", fail: fail)
            let value = parts.count > 1 ? try decode(parts[1], part: "parameter '\(key)'", fail: fail) : ""
            switch key {
            case "sslmode":
                guard let mode = DatabaseSettings.SSLMode(rawValue: value) else {
                    let allowed = DatabaseSettings.SSLMode.allCases.map(\.rawValue).joined(separator: ", ")
                    throw fail("sslmode '\(value)' is not one of \(allowed)")
                }
                settings.sslMode = mode
            case "application_name":
                settings.applicationName = value
            default:
                throw fail("unknown parameter '\(key)' (supported: sslmode, application_name)")
            }
        }
    }

    /// Percent-decodes one URL part; a malformed escape is an error naming the part.
    private static func decode(
        _ text: Substring, part: String, fail: (String) -> StoreError
    ) throws -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard iterator.count >= 2,
                let high = hexValue(iterator.popFirst()!),
                let low = hexValue(iterator.popFirst()!)
            else {
                throw fail("the \(part) has a malformed percent-escape")
            }
            bytes.append(high << 4 | low)
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw fail("the \(part) is not valid UTF-8 after percent-decoding")
        }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// The URL with whatever sits between `user:` and the last `@` replaced by `***`.
    static func redact(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let afterScheme = url[schemeEnd.upperBound...]
        let authorityEnd = afterScheme.firstIndex(of: "?") ?? afterScheme.endIndex
        guard let at = afterScheme[..<authorityEnd].lastIndex(of: "@"),
            let colon = afterScheme[..<at].firstIndex(of: ":")
        else { return url }
        return String(url[..<afterScheme.index(after: colon)]) + "***" + String(url[at...])
    }
}
