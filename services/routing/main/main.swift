import Foundation
import RoutingService
import ServiceKit

if CommandLine.arguments.dropFirst().first == "--bench" {
    do {
        try RouteBenchmark.run()
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("routing --bench: \(error)\n".utf8))
        exit(1)
    }
}
await WorkerHost.main(RoutingService.spec, RoutingService.definition)
