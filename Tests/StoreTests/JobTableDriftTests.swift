import Foundation
import Store
import Testing

/// Applied migrations never change (the migrator refuses a file whose checksum moved), so the
/// services' job tables are written out in their SQL files; ``JobQueue/migrationSQL(schema:table:)``
/// is the one definition those files must match, and this test holds them to it.
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
        guard let schema else {
            return JobQueue.migrationSQL(schema: "service", table: table).replacingOccurrences(of: "service.", with: "")
        }
        return JobQueue.migrationSQL(schema: schema, table: table)
    }

    @Test("notify's jobs, printing's render_jobs and civic's jobs are JobQueue's table, and no other file defines one")
    func noDrift() throws {
        let owners: [String: (table: String, schema: String?)] = [
            "services/notify/NotifyService/Migrations/0001_notifications.sql": ("jobs", nil),
            "services/printing/PrintingService/Migrations/0003_print_jobs.sql": ("render_jobs", nil),
            "services/civic/CivicService/Migrations/0001_bills_people_meetings.sql": ("jobs", "civic"),
        ]
        let files = try Self.migrationFiles()
        for (path, owner) in owners {
            let text = try #require(files[path], "\(path) exists")
            #expect(
                text.contains(Self.expected(table: owner.table, schema: owner.schema)),
                "\(path) defines \(owner.table) as JobQueue does")
        }
        // A job table anywhere else would be a copy this test does not hold to the definition.
        let others = files.filter { $0.value.contains("max_attempts") && owners[$0.key] == nil }.keys.sorted()
        #expect(others.isEmpty, "job tables outside the known files: \(others)")
    }
}
