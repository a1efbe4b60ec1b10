import Crypto
import Foundation

/// One numbered schema change: a version, a name and the SQL that applies it.
///
/// A service ships its migrations as SwiftPM resources, files named `NNNN_name.sql`
/// (e.g. `0001_create_users.sql`), and loads them with ``load(from:)``. The SQL may hold several
/// statements; it runs in one transaction, so it must not contain `BEGIN`/`COMMIT` or
/// statements that refuse to run in a transaction (`CREATE INDEX CONCURRENTLY`, `VACUUM`).
public struct Migration: Sendable, Equatable {
    /// Position in the sequence; migrations apply in increasing version order.
    public let version: Int
    /// A short description, from the file name.
    public let name: String
    /// The SQL to run.
    public let sql: String

    /// Creates a migration.
    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    /// SHA-256 of ``sql`` (UTF-8) as 64 hex digits; recorded when applied, so that a later
    /// edit of an applied migration is detected.
    public var checksum: String {
        SHA256.hash(data: Array(sql.utf8)).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// Reads every `NNNN_name.sql` file in `directory` (at least one digit, then `_`, a name of
    /// letters, digits, `_` or `-`, then `.sql`), sorted by number. Hidden files are ignored;
    /// any other file name, or two files with the same number, is a
    /// ``StoreError/Code/invalidMigration`` error naming the file.
    public static func load(from directory: URL) throws -> [Migration] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw StoreError(.invalidMigration, "cannot list migrations in '\(directory.path)': \(error)")
        }
        var migrations: [Migration] = []
        for fileName in names.sorted() where !fileName.hasPrefix(".") {
            guard let (version, name) = parse(fileName: fileName) else {
                throw StoreError(
                    .invalidMigration,
                    "migration file '\(fileName)' in '\(directory.path)' is not named NNNN_name.sql"
                )
            }
            let url = directory.appendingPathComponent(fileName)
            let sql: String
            do {
                sql = try String(contentsOf: url, encoding: .utf8)
            } catch {
                throw StoreError(.invalidMigration, "cannot read migration file '\(fileName)': \(error)")
            }
            migrations.append(Migration(version: version, name: name, sql: sql))
        }
        migrations.sort { $0.version < $1.version }
        try validateOrder(migrations)
        return migrations
    }

    /// Throws ``StoreError/Code/invalidMigration`` if two migrations share a version or a
    /// version is negative.
    static func validateOrder(_ migrations: [Migration]) throws {
        var seen: [Int: String] = [:]
        for migration in migrations {
            guard migration.version >= 0 else {
                throw StoreError(
                    .invalidMigration, "migration '\(migration.name)' has negative version \(migration.version)")
            }
            if let other = seen[migration.version] {
                throw StoreError(
                    .invalidMigration,
                    "migrations '\(other)' and '\(migration.name)' both have version \(migration.version)"
                )
            }
            seen[migration.version] = migration.name
        }
    }

    /// `("0001_create_users.sql") -> (1, "create_users")`, or nil if the name does not fit.
    static func parse(fileName: String) -> (Int, String)? {
        guard fileName.hasSuffix(".sql") else { return nil }
        let stem = fileName.dropLast(4)
        guard let underscore = stem.firstIndex(of: "_") else { return nil }
        let digits = stem[..<underscore]
        let name = stem[stem.index(after: underscore)...]
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            let version = Int(digits),
            !name.isEmpty,
            name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") })
        else { return nil }
        return (version, String(name))
    }
}
