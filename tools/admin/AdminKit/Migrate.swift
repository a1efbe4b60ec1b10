import ArgumentParser
import Foundation
import ServiceKit
import Store

/// `migrate`: the schema migrations each service applies at start (the event log's, then each
/// worker's own schema), listed or applied ahead of a start. Applying takes the same advisory
/// lock per schema as a starting service, so it is safe beside running replicas.
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List (--dry-run) or apply (--apply) the pending schema migrations of every service, on DATABASE_URL."
    )

    @Flag(help: "List the pending migrations per schema; change nothing.") var dryRun = false
    @Flag(help: "Apply the pending migrations.") var apply = false

    func validate() throws {
        guard dryRun != apply else { throw ValidationError("give one of --dry-run and --apply") }
    }

    /// Every schema's migrations, in the order the services start.
    static func schemas() throws -> [(schema: String, migrations: [Migration])] {
        try [("events", EventLog.migrations)] + Workers.definitions.map { ($0.service.rawValue, try $0.migrations()) }
    }

    /// `NNNN_name`, as the migration's file is named.
    static func fileName(_ migration: Migration) -> String {
        let digits = String(migration.version)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits + "_" + migration.name
    }

    func run() async throws {
        let apply = self.apply
        try await guarded {
            let environment = ProcessEnvironment.process
            let settings = try DatabaseSettings(url: try environment.required(.databaseURL))
            // The pool's own warnings stay quiet: it warns when the first lease wins the race
            // with `run()` starting, and a failed connection reaches the command as its error.
            var poolLogger = AdminBus.logger
            poolLogger.logLevel = .error
            let database = Database(settings: settings, logger: poolLogger)
            let schemas = try Self.schemas()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await database.client.run() }
                defer { group.cancelAll() }
                var pendingTotal = 0
                for (schema, migrations) in schemas {
                    let migrator = Migrator(client: database.client, schema: schema, logger: AdminBus.logger)
                    let applied = Set(try await migrator.appliedVersions())
                    let pending = migrations.filter { !applied.contains($0.version) }
                    pendingTotal += pending.count
                    let names = pending.map(Self.fileName)
                    if apply {
                        // Another replica may have applied some meanwhile: say what this run did.
                        let done = Set(try await migrator.migrate(migrations))
                        let doneNames = migrations.filter { done.contains($0.version) }.map(Self.fileName)
                        print(
                            "\(schema): applied \(done.count)"
                                + (done.isEmpty ? "" : ": \(doneNames.joined(separator: ", "))"))
                    } else {
                        print(
                            "\(schema): \(pending.count) pending"
                                + (names.isEmpty ? "" : ": \(names.joined(separator: ", "))"))
                    }
                }
                print(apply ? "done" : "\(pendingTotal) pending in all")
            }
        }
    }
}
