import Foundation
import PostgresNIO
import Store
import Testing

@Suite("Migrator against PostgreSQL")
struct MigratorTests {
    /// Three migrations with side effects, written with unqualified names (the migrator sets
    /// `search_path` to the schema), several statements per file, and semicolons inside strings,
    /// comments and a dollar-quoted function body.
    static let migrations = [
        Migration(
            version: 1, name: "create_side",
            sql: """
                -- a comment; with a semicolon
                CREATE TABLE side (n integer NOT NULL, note text);
                INSERT INTO side VALUES (1, 'one; still one');
                SELECT pg_sleep(0.2); -- hold the lock long enough for the other replicas to queue on it
                """),
        Migration(
            version: 2, name: "more_rows",
            sql: """
                INSERT INTO side VALUES (2, E'two\\'s; escaped');
                /* block; comment /* nested; */ */
                INSERT INTO side VALUES (3, $$dollar; quoted$$);
                """),
        Migration(
            version: 3, name: "function",
            sql: """
                CREATE FUNCTION add_row(v integer) RETURNS integer LANGUAGE plpgsql AS $fn$
                BEGIN
                    INSERT INTO side VALUES (v, 'from function;');
                    RETURN v;
                END;
                $fn$;
                SELECT add_row(4);
                """),
    ]

    @Test func threeConcurrentMigratorsApplyEachMigrationExactlyOnce() async throws {
        try await TestDatabase.withSchema("mig") { client, schema in
            // Three replicas, each with its own pool, start at the same moment.
            let applied = try await withThrowingTaskGroup(of: [Int].self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        try await TestDatabase.withClient { replica in
                            try await Migrator(client: replica, schema: schema, logger: TestDatabase.logger)
                                .migrate(Self.migrations)
                        }
                    }
                }
                var all: [[Int]] = []
                for try await versions in group { all.append(versions) }
                return all
            }
            #expect(applied.flatMap { $0 }.sorted() == [1, 2, 3])
            #expect(applied.filter { !$0.isEmpty }.count == 1)

            let rows = try await client.query(
                "SELECT n FROM \(unescaped: schema).side ORDER BY n", logger: TestDatabase.logger)
            var values: [Int] = []
            for try await n in rows.decode(Int.self) { values.append(n) }
            #expect(values == [1, 2, 3, 4])
            #expect(
                try await TestDatabase.scalar(
                    "SELECT count(*)::int FROM \(unescaped: schema).schema_migrations", on: client) == 3)
            let migrator = Migrator(client: client, schema: schema, logger: TestDatabase.logger)
            #expect(try await migrator.appliedVersions() == [1, 2, 3])
            #expect(try await migrator.migrate(Self.migrations) == [])
        }
    }

    @Test func laterMigrationsApplyOnTopOfEarlierOnes() async throws {
        try await TestDatabase.withSchema("mig") { client, schema in
            let migrator = Migrator(client: client, schema: schema, logger: TestDatabase.logger)
            let before = try await migrator.appliedVersions()
            #expect(before == [])
            #expect(try await migrator.migrate(Array(Self.migrations.prefix(1))) == [1])
            #expect(try await migrator.migrate(Self.migrations) == [2, 3])
            #expect(
                try await TestDatabase.scalar("SELECT count(*)::int FROM \(unescaped: schema).side", on: client) == 4)
        }
    }

    @Test func editedAppliedMigrationIsAChecksumErrorNamingTheVersion() async throws {
        try await TestDatabase.withSchema("mig") { client, schema in
            let migrator = Migrator(client: client, schema: schema, logger: TestDatabase.logger)
            try await migrator.migrate(Self.migrations)
            var edited = Self.migrations
            edited[1] = Migration(version: 2, name: "more_rows", sql: "INSERT INTO side VALUES (99, 'changed');")
            let error = try await #require(throws: StoreError.self) { try await migrator.migrate(edited) }
            #expect(error.code == .migrationChecksumMismatch)
            #expect(error.message.contains("migration 2 (more_rows)"))
            #expect(
                try await TestDatabase.scalar(
                    "SELECT count(*)::int FROM \(unescaped: schema).side WHERE n = 99", on: client) == 0)
        }
    }

    @Test func failedMigrationRollsBackAndReleasesTheLock() async throws {
        try await TestDatabase.withSchema("mig") { client, schema in
            let migrator = Migrator(client: client, schema: schema, logger: TestDatabase.logger)
            let broken = [
                Self.migrations[0],
                Migration(version: 2, name: "broken", sql: "CREATE TABLE half (x int); SELECT 1 / 0;"),
            ]
            let error = try await #require(throws: StoreError.self) { try await migrator.migrate(broken) }
            #expect(error.code == .migrationFailed)
            #expect(error.message.contains("migration 2 (broken)"))
            #expect(error.message.contains("division by zero"))
            #expect(try await migrator.appliedVersions() == [1])
            #expect(
                try await TestDatabase.scalar(
                    "SELECT count(*)::int FROM pg_tables WHERE schemaname = \(schema) AND tablename = 'half'",
                    on: client) == 0)

            // The advisory lock was released: another migrator (another session) gets through.
            let fixed = [Self.migrations[0], Migration(version: 2, name: "fixed", sql: "CREATE TABLE half (x int);")]
            let again = try await TestDatabase.withClient { other in
                try await Migrator(client: other, schema: schema, logger: TestDatabase.logger).migrate(fixed)
            }
            #expect(again == [2])
        }
    }

    @Test func duplicateVersionsAndBadSchemaNamesAreRejected() async throws {
        try await TestDatabase.withClient { client in
            let duplicate = [
                Migration(version: 1, name: "a", sql: "SELECT 1"),
                Migration(version: 1, name: "b", sql: "SELECT 2"),
            ]
            let migrator = Migrator(
                client: client, schema: TestDatabase.uniqueSchema("mig"), logger: TestDatabase.logger)
            let error = try await #require(throws: StoreError.self) { try await migrator.migrate(duplicate) }
            #expect(error.code == .invalidMigration)
            #expect(error.message.contains("'a' and 'b' both have version 1"))

            let bad = Migrator(client: client, schema: "Robert'); DROP TABLE x;--", logger: TestDatabase.logger)
            let badError = try await #require(throws: StoreError.self) { try await bad.migrate([]) }
            #expect(badError.code == .invalidIdentifier)
        }
    }

    @Test func twoServicesCreatingTheSameExtensionAtOnceBothSucceed() async throws {
        // Extensions are database-wide (routing and social both create pg_trgm). An extension no
        // other test uses, dropped first, so each round really races to create it.
        try await TestDatabase.withClient { client in
            for _ in 0..<5 {
                try await client.query("DROP EXTENSION IF EXISTS fuzzystrmatch", logger: TestDatabase.logger)
                let migration = Migration(
                    version: 1, name: "extension",
                    sql: "CREATE EXTENSION IF NOT EXISTS fuzzystrmatch WITH SCHEMA public; SELECT pg_sleep(0.05);")
                let schemas = [TestDatabase.uniqueSchema("ext"), TestDatabase.uniqueSchema("ext")]
                let applied = try await withThrowingTaskGroup(of: [Int].self) { group in
                    for schema in schemas {
                        group.addTask {
                            try await TestDatabase.withClient { replica in
                                try await Migrator(client: replica, schema: schema, logger: TestDatabase.logger)
                                    .migrate([migration])
                            }
                        }
                    }
                    return try await group.reduce(into: [[Int]]()) { $0.append($1) }
                }
                #expect(applied == [[1], [1]])
                for schema in schemas {
                    try await client.query("DROP SCHEMA \(unescaped: schema) CASCADE", logger: TestDatabase.logger)
                }
            }
            try await client.query("DROP EXTENSION IF EXISTS fuzzystrmatch", logger: TestDatabase.logger)
        }
    }
}