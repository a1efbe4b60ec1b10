import Foundation

// Route queries in process (A* with and without landmarks against Dijkstra on a 1,000,000-node
// grid), then the same against pgRouting when DATABASE_URL names a database with the extension.
do {
    try RouteBenchmark.run()
    if ProcessInfo.processInfo.environment["DATABASE_URL"] != nil {
        try await PgRoutingComparison.run()
    } else {
        print("pgRouting comparison: set DATABASE_URL (a database with the pgrouting extension) to run it")
    }
} catch {
    FileHandle.standardError.write(Data("routing-bench: \(error)\n".utf8))
    exit(1)
}
