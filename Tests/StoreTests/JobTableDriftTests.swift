import Foundation
import PostgresNIO
import Store
import Testing

/// Applied migrations never change (the migrator refuses a file whose checksum moved), so the
/// services' job tables are written out in their SQL files; ``JobQueue/migrationSQL(schema:table:)``
/// is the one definition those files must match, and this test holds them to it. The tables were
/// first written before the `traceparent` column, which a later file of each service adds
/// (``JobQueue/addTraceparentSQL(schema:table:)``); a test against PostgreSQL shows that the two
/// steps give the same table as the definition.
@Suite("job tables: every service's migration writes exactly JobQueue's table")
struct JobTableDriftTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every migration file of every service, by path below the repository.
    static func migrationFiles() throws -> [String: String] {
        var files: [String: String] = [:]
        let services = repository.appendingPathComponent("services")
        guard let walker = FileManager.default.enumerator(at: services, includingPropertiesForKeys: nil) else {
            return files
        }
        for case let url as URL in walker where url.pathExtension == "sql" && url.path.contains("/Migrations/") {
            files[String(url.path.dropFirst(repository.path.count + 1))] = try String(contentsOf: url, encoding: .utf8)
        }
        return files
    }

    /// The job table a service file must contain: JobQueue's DDL, unqualified (the migrator runs
    /// a service's files with its schema as the search path) or qualified by `schema`.
    static func expected(table: String, schema: String?) -> String {
        unqualified(JobQueue.migrationSQL(schema: schema ?? "service", table: table), schema: schema)
    }

    /// JobQueue's DDL as the job tables were first written: without the last column, `traceparent`.
    static func firstWritten(table: String, schema: String?) -> String {
        firstWritten(expected(table: table, schema: schema))
    }

    static func firstWritten(_ sql: String) -> String {
        sql.replacingOccurrences(of: ",\n    traceparent text\n);", with: "\n);")
    }

    /// The statement that adds `traceparent` to a table first written without it.
    static func addedTraceparent(table: String, schema: String?) -> String {
        unqualified(JobQueue.addTraceparentSQL(schema: schema ?? "service", table: table), schema: schema)
    }

    static func unqualified(_ sql: String, schema: String?) -> String {
        schema == nil ? sql.replacingOccurrences(of: "service.", with: "") : sql
    }

    @Test(
        "notify's jobs, printing's render_jobs and civic's jobs are JobQueue's table (first written, then given traceparent), and no other file defines one"
    )
    func noDrift() throws {
        let owners: [String: (table: String, schema: String?, traceparent: String)] = [
            "services/notify/NotifyService/Migrations/0001_notifications.sql": (
                "jobs", nil, "services/notify/NotifyService/Migrations/0006_job_traceparent.sql"
            ),
            "services/printing/PrintingService/Migrations/0003_print_jobs.sql": (
                "render_jobs", nil, "services/printing/PrintingService/Migrations/0010_job_traceparent.sql"
            ),
            "services/civic/CivicService/Migrations/0001_bills_people_meetings.sql": (
                "jobs", "civic", "services/civic/CivicService/Migrations/0004_job_traceparent.sql"
            ),
        ]
        #expect(
            Self.firstWritten(table: "jobs", schema: nil) != Self.expected(table: "jobs", schema: nil),
            "traceparent is the last column of JobQueue's table")
        let files = try Self.migrationFiles()
        for (path, owner) in owners {
            let text = try #require(files[path], "\(path) exists")
            #expect(
                text.contains(Self.firstWritten(table: owner.table, schema: owner.schema)),
                "\(path) defines \(owner.table) as JobQueue first did")
            let later = try #require(files[owner.traceparent], "\(owner.traceparent) exists")
            #expect(
                later.contains(Self.addedTraceparent(table: owner.table, schema: owner.schema)),
                "\(owner.traceparent) adds traceparent to \(owner.table)")
        }
        // A job table anywhere else would be a copy this test does not hold to the definition.
        let others = files.filter { $0.value.contains("max_attempts") && owners[$0.key] == nil }.keys.sorted()
        #expect(others.isEmpty, "job tables outside the known files: \(others)")
    }

    @Test("a table first written without traceparent and then given it is the table JobQueue creates now")
    func upgradedTableMatchesTheDefinition() async throws {
        try await TestDatabase.withClient { client in
            let fresh = TestDatabase.uniqueSchema("jobs_fresh")
            let upgraded = TestDatabase.uniqueSchema("jobs_upgraded")
            func dropBoth() async {
                try? await TestDatabase.drop(fresh, client: client)
                try? await TestDatabase.drop(upgraded, client: client)
            }
            do {
                try await compare(client: client, fresh: fresh, upgraded: upgraded)
            } catch {
                await dropBoth()
                throw error
            }
            await dropBoth()
        }
    }

    private func compare(client: PostgresClient, fresh: String, upgraded: String) async throws {
        try await Migrator(client: client, schema: fresh, logger: TestDatabase.logger).migrate([
            Migration(version: 1, name: "jobs", sql: JobQueue.migrationSQL(schema: fresh))
        ])
        try await Migrator(client: client, schema: upgraded, logger: TestDatabase.logger).migrate([
            Migration(version: 1, name: "jobs", sql: Self.firstWritten(JobQueue.migrationSQL(schema: upgraded))),
            Migration(version: 2, name: "job_traceparent", sql: JobQueue.addTraceparentSQL(schema: upgraded)),
        ])
        func columns(_ schema: String) async throws -> [String] {
            let rows = try await client.query(
                """
                SELECT column_name::text || ' ' || data_type::text || ' ' || is_nullable::text
                    || ' ' || coalesce(column_default::text, '')
                FROM information_schema.columns WHERE table_schema = \(schema) AND table_name = 'jobs'
                ORDER BY ordinal_position
                """, logger: TestDatabase.logger)
            var columns: [String] = []
            for try await column in rows.decode(String.self) { columns.append(column) }
            return columns
        }
        let expected = try await columns(fresh)
        #expect(expected.last == "traceparent text YES ")
        #expect(try await columns(upgraded) == expected)
        #expect(
            try await JobQueue.tables(in: upgraded, client: client, logger: TestDatabase.logger) == ["jobs"])
    }
}
