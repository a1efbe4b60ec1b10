import Foundation
import Store
import Testing

@Suite("Migration files")
struct MigrationFileTests {
    private func directory(with files: [String: String]) throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("store-migrations-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        for (name, text) in files {
            try text.write(to: url.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        return url
    }

    @Test func loadsNumberedFilesInNumericOrder() throws {
        let url = try directory(with: [
            "0010_tenth.sql": "SELECT 10;",
            "0002_second-step.sql": "SELECT 2;",
            "0001_first.sql": "SELECT 1;",
            ".DS_Store": "ignored",
        ])
        defer { try? FileManager.default.removeItem(at: url) }
        let migrations = try Migration.load(from: url)
        #expect(migrations.map(\.version) == [1, 2, 10])
        #expect(migrations.map(\.name) == ["first", "second-step", "tenth"])
        #expect(migrations[0].sql == "SELECT 1;")
    }

    @Test(arguments: [
        "create_users.sql", "0001_users.txt", "0001-users.sql", "00a1_users.sql", "0001_.sql", "README.md",
    ])
    func wrongFileNameIsAnErrorNamingTheFile(fileName: String) throws {
        let url = try directory(with: ["0001_ok.sql": "SELECT 1;", fileName: "SELECT 2;"])
        defer { try? FileManager.default.removeItem(at: url) }
        let error = try #require(throws: StoreError.self) { try Migration.load(from: url) }
        #expect(error.code == .invalidMigration)
        #expect(error.message.contains("'\(fileName)'"))
    }

    @Test func twoFilesWithTheSameNumberAreAnError() throws {
        let url = try directory(with: ["0001_a.sql": "SELECT 1;", "001_b.sql": "SELECT 2;"])
        defer { try? FileManager.default.removeItem(at: url) }
        let error = try #require(throws: StoreError.self) { try Migration.load(from: url) }
        #expect(error.message.contains("both have version 1"))
    }

    @Test func missingDirectoryIsAnError() throws {
        let url = URL(fileURLWithPath: "/nonexistent/\(UUID().uuidString)")
        let error = try #require(throws: StoreError.self) { try Migration.load(from: url) }
        #expect(error.code == .invalidMigration)
    }

    @Test func checksumIsSHA256OfTheSQL() {
        #expect(
            Migration(version: 1, name: "e", sql: "").checksum
                == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            Migration(version: 1, name: "abc", sql: "abc").checksum
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            Migration(version: 1, name: "two-block", sql: "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                .checksum
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            Migration(version: 1, name: "a", sql: String(repeating: "a", count: 1000)).checksum
                == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    @Test func libraryMigrationsTargetTheirSchemas() {
        #expect(EventLog.migrations.map(\.version) == [1, 2])
        #expect(EventLog.migrations[1].sql.contains("ALTER TABLE events.log ADD COLUMN traceparent"))
        #expect(EventLog.migrations[0].sql.contains("CREATE TABLE events.log ("))
        #expect(EventLog.migrations(schema: "x").first?.sql.contains("CREATE TABLE x.handled (") == true)
        let jobs = JobQueue.migrationSQL(schema: "printing")
        #expect(jobs.contains("CREATE TABLE printing.jobs ("))
        #expect(jobs.contains("jobs_claim_idx"))
    }
}
