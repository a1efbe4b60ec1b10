import Foundation
import RoutingService
import ServiceKit

if CommandLine.arguments.dropFirst().first == "--bench" {
    do {
        try RouteBenchmark.run()
        if ProcessInfo.processInfo.environment["DATABASE_URL"] != nil {
            try await PgRoutingComparison.run()
        } else {
            print("pgRouting comparison: set DATABASE_URL (a database with the pgrouting extension) to run it")
        }
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("routing --bench: \(error)\n".utf8))
        exit(1)
    }
}
await WorkerHost.main(RoutingService.spec, RoutingService.definition)
