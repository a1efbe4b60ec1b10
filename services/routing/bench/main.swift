import Foundation

// Route queries in process (A* with and without landmarks against Dijkstra on a 1,000,000-node
// grid), then the same against pgRouting when DATABASE_URL names a database with the extension,
// then timetable reads and next-class routing against that database.
// `routing-bench timetable [--students N] [--queries N]` runs the timetable part alone.
do {
    let arguments = CommandLine.arguments.dropFirst()
    func option(_ name: String, _ fallback: Int) -> Int {
        guard let index = arguments.firstIndex(of: name), index + 1 < arguments.endIndex,
            let value = Int(arguments[index + 1]), value > 0
        else { return fallback }
        return value
    }
    let students = option("--students", 2_000)
    let queries = option("--queries", 5_000)
    let hasDatabase = ProcessInfo.processInfo.environment["DATABASE_URL"] != nil
    if arguments.first == "timetable" {
        guard hasDatabase else {
            FileHandle.standardError.write(Data("routing-bench timetable: set DATABASE_URL\n".utf8))
            exit(2)
        }
        try await TimetableBenchmark.run(students: students, queries: queries)
    } else {
        try RouteBenchmark.run()
        if hasDatabase {
            try await PgRoutingComparison.run()
            try await TimetableBenchmark.run(students: students, queries: queries)
        } else {
            print(
                "pgRouting comparison and timetable: set DATABASE_URL (a database with the pgrouting extension) to run them"
            )
        }
    }
} catch {
    FileHandle.standardError.write(Data("routing-bench: \(error)\n".utf8))
    exit(1)
}
