import ArgumentParser
import Contract
import Foundation
import ServiceKit

/// `jobs`: each worker service's job tables (`job_queues`): queued, running, dead, and how long
/// the oldest due job has waited.
struct Jobs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The job queues of each service: jobs queued, running and dead, and the oldest due job's wait.")

    @OptionGroup var scope: ServiceOptions
    @OptionGroup var bus: BusOptions
    @Flag(help: "Print JSON.") var json = false

    /// One service's answer, as `--json` prints it.
    struct ServiceQueues: Encodable {
        let service: String
        let ok: Bool
        let error: String?
        let queues: [JobAdministration.QueueFigures]
    }

    func run() async throws {
        let timeout = bus.duration
        let answers = try await AdminBus.with { [scope] client in
            await BusClient.askEach(scope.selected) { service in
                try await client.call(
                    JobAdministration.Queues.self, on: service, Empty(), metadata: AdminBus.metadata(), timeout: timeout
                )
            }
        }
        let report = answers.map { service, answer in
            switch answer {
            case .success(let list): ServiceQueues(service: service.rawValue, ok: true, error: nil, queues: list.queues)
            case .failure(let error):
                ServiceQueues(service: service.rawValue, ok: false, error: error.description, queues: [])
            }
        }
        if json {
            try printJSON(report)
        } else {
            print("service    queue                  queued  running     dead  oldest due (s)")
            for entry in report {
                guard entry.ok else {
                    print(entry.service.padded(10) + " (no answer: \(entry.error ?? ""))")
                    continue
                }
                if entry.queues.isEmpty { print(entry.service.padded(10) + " (no job tables)") }
                for queue in entry.queues {
                    let name: String = entry.service.padded(10) + " " + queue.queue.padded(20)
                    let counts: String =
                        String(queue.queued).leftPadded(8) + String(queue.running).leftPadded(9)
                        + String(queue.dead).leftPadded(9)
                    print(name + counts + String(queue.oldestDueAgeSeconds).leftPadded(16))
                }
            }
        }
        if report.contains(where: { !$0.ok }) { throw ExitCode(1) }
    }
}

extension String {
    func padded(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
