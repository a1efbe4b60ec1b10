import Logging
import PostgresNIO

/// Applies a service's numbered migrations to its schema, safely from many replicas at once.
///
/// ``migrate(_:)`` leases one connection and takes a session-level `pg_advisory_lock` keyed on
/// the schema name, so replicas that start together apply each migration exactly once: the
/// first applies, the others wait and then find nothing left to do. It creates the schema if
/// missing, keeps `<schema>.schema_migrations(version, name, checksum, applied_at)`, and runs
/// each pending migration, with `search_path` set to `<schema>, public`, in its own transaction
/// together with its `schema_migrations` row. The lock is released on success and on error.
public struct Migrator: Sendable {
    /// The pool to lease the migrating connection from.
    public let client: PostgresClient
    /// The schema the migrations belong to (lower-case identifier).
    public let schema: String
    /// Where progress is logged; also passed to every query.
    public let logger: Logger

    /// Creates a migrator for `schema`.
    public init(client: PostgresClient, schema: String, logger: Logger) {
        self.client = client
        self.schema = schema
        self.logger = logger
    }

    /// Applies the migrations not yet recorded in `<schema>.schema_migrations`, in version
    /// order, and returns the versions it applied (empty if the schema was up to date).
    ///
    /// Throws ``StoreError/Code/migrationChecksumMismatch`` (naming the version) if an applied
    /// migration's SQL has changed since, ``StoreError/Code/invalidMigration`` for duplicate
    /// versions, and ``StoreError/Code/migrationFailed`` (naming the version and the server's
    /// message) if a migration's SQL fails, or if creating the schema or its
    /// `schema_migrations` table fails; a failed migration leaves no trace.
    @discardableResult
    public func migrate(_ migrations: [Migration]) async throws -> [Int] {
        let schema = try SQLIdentifier.validated(schema, role: "schema")
        let ordered = migrations.sorted { $0.version < $1.version }
        try Migration.validateOrder(ordered)
        let key = Self.lockKey(schema: schema)
        let logger = self.logger

        return try await client.withConnection { connection in
            logger.debug("waiting for migration lock", metadata: ["schema": "\(schema)", "lockKey": "\(key)"])
            try await connection.fetch("SELECT pg_advisory_lock(\(key))", logger: logger)
            let applied: [Int]
            do {
                applied = try await Self.apply(ordered, schema: schema, on: connection, logger: logger)
            } catch let error as StoreError {
                await Self.unlock(key, on: connection, logger: logger)
                throw error
            } catch {
                await Self.unlock(key, on: connection, logger: logger)
                throw StoreError(
                    .migrationFailed,
                    "preparing schema '\(schema)' for migrations failed: \(PostgresErrorText.describe(error))"
                )
            }
            await Self.unlock(key, on: connection, logger: logger)
            return applied
        }
    }

    /// The versions recorded as applied in `<schema>.schema_migrations`, ascending; empty if the
    /// table does not exist yet.
    public func appliedVersions() async throws -> [Int] {
        let schema = try SQLIdentifier.validated(schema, role: "schema")
        let rows = try await client.fetch(
            "SELECT to_regclass(\(schema + ".schema_migrations")) IS NOT NULL", logger: logger
        )
        var exists = false
        for try await row in rows { exists = try row.decode(Bool.self) }
        guard exists else { return [] }
        var versions: [Int] = []
        let versionRows = try await client.fetch(
            "SELECT version FROM \(unescaped: schema).schema_migrations ORDER BY version", logger: logger
        )
        for try await row in versionRows { versions.append(try row.decode(Int.self)) }
        return versions
    }

    private static func apply(
        _ migrations: [Migration], schema: String, on connection: PostgresConnection, logger: Logger
    ) async throws -> [Int] {
        try await connection.fetch("CREATE SCHEMA IF NOT EXISTS \(unescaped: schema)", logger: logger)
        try await connection.fetch(
            """
            CREATE TABLE IF NOT EXISTS \(unescaped: schema).schema_migrations (
                version integer PRIMARY KEY,
                name text NOT NULL,
                checksum text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            logger: logger
        )
        var recorded: [Int: String] = [:]
        let rows = try await connection.fetch(
            "SELECT version, checksum FROM \(unescaped: schema).schema_migrations", logger: logger
        )
        for try await (version, checksum) in rows.decode((Int, String).self) {
            recorded[version] = checksum
        }

        var applied: [Int] = []
        for migration in migrations {
            let checksum = migration.checksum
            if let existing = recorded[migration.version] {
                guard existing == checksum else {
                    throw StoreError(
                        .migrationChecksumMismatch,
                        "migration \(migration.version) (\(migration.name)) in schema '\(schema)' was changed "
                            + "after it was applied (checksum \(existing) in the database, \(checksum) now); "
                            + "add a new migration instead of editing an applied one"
                    )
                }
                continue
            }
            try await run(migration, checksum: checksum, schema: schema, on: connection, logger: logger)
            applied.append(migration.version)
        }
        return applied
    }

    private static func run(
        _ migration: Migration, checksum: String, schema: String,
        on connection: PostgresConnection, logger: Logger
    ) async throws {
        let statements = SQLScript.statements(in: migration.sql)
        do {
            try await connection.transaction(logger: logger) { connection in
                try await connection.fetch("SET LOCAL search_path TO \(unescaped: schema), public", logger: logger)
                // Extensions are database-wide: two services' migrations creating the same one at
                // once (routing's and social's pg_trgm) would both pass `IF NOT EXISTS` and the
                // second fail on the catalog's unique index. One lock for every such migration
                // makes the second wait and then find the extension there.
                if migration.sql.uppercased().contains("CREATE EXTENSION") {
                    try await connection.fetch(
                        "SELECT pg_advisory_xact_lock(\(Self.extensionLockKey))", logger: logger)
                }
                for statement in statements {
                    try await connection.fetch(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.fetch(
                    """
                    INSERT INTO \(unescaped: schema).schema_migrations (version, name, checksum)
                    VALUES (\(migration.version), \(migration.name), \(checksum))
                    """,
                    logger: logger
                )
            }
        } catch {
            throw StoreError(
                .migrationFailed,
                "migration \(migration.version) (\(migration.name)) in schema '\(schema)' failed: "
                    + PostgresErrorText.describe(error)
            )
        }
        logger.info(
            "applied migration",
            metadata: ["schema": "\(schema)", "version": "\(migration.version)", "name": "\(migration.name)"]
        )
    }

    /// The transaction lock every migration that creates an extension takes first.
    static let extensionLockKey: Int64 = 0x4250_4578_7445_7874  // "BPExtExt"

    private static func unlock(_ key: Int64, on connection: PostgresConnection, logger: Logger) async {
        do {
            try await connection.fetch("SELECT pg_advisory_unlock(\(key))", logger: logger)
        } catch {
            // A connection that still held the lock must not go back to the pool.
            logger.error(
                "could not release migration lock; closing the connection",
                metadata: [
                    "error": "\(PostgresErrorText.describe(error))"
                ])
            try? await connection.close()
        }
    }

    /// The advisory-lock key for migrating `schema`: FNV-1a 64 of `backplane.migrate.<schema>`.
    static func lockKey(schema: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "backplane.migrate.\(schema)".utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }
}
