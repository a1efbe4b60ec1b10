import ArgumentParser
import Contract
import Foundation
import ServiceKit

/// Which services a command asks.
struct ServiceOptions: ParsableArguments {
    @Option(name: .customLong("service"), help: "A service to ask (repeatable; default: every worker service).")
    var services: [String] = []

    func validate() throws {
        for name in services where !Workers.names.contains(name) {
            throw ValidationError("unknown service \(name); one of \(Workers.names.joined(separator: ", "))")
        }
    }

    var selected: [ServiceName] { (services.isEmpty ? Workers.names : services).map { ServiceName($0) } }
}

/// `dead-letters`: the job tables' dead letters, through `dead_letters` and `retry_dead_letter`,
/// which every worker service answers for its own tables.
struct DeadLetters: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dead-letters",
        abstract: "List, show and retry dead letters (jobs that ran out of attempts).",
        subcommands: [List.self, Show.self, Retry.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The dead letters, most recently dead first.")

        @OptionGroup var scope: ServiceOptions
        @OptionGroup var bus: BusOptions
        @Option(help: "At most this many per service (1 to 500).") var limit: Int = 100
        @Flag(help: "Print JSON.") var json = false

        func validate() throws {
            guard (1...500).contains(limit) else { throw ValidationError("--limit must be 1 to 500") }
        }

        func run() async throws {
            let (items, unavailable) = try await DeadLetters.list(scope.selected, limit: limit, timeout: bus.duration)
            if json {
                try printJSON(Listing(items: items, unavailable: unavailable))
            } else {
                for item in items {
                    let what = "\(item.service)  \(item.id)  \(item.queue)  \(item.kind)"
                    let attempts = "attempts \(item.attempts)/\(item.maxAttempts)"
                    let why = item.deadReason ?? item.lastError ?? ""
                    print("\(what)  \(attempts)  dead since \(item.updatedAt.formatted(.iso8601))  \(why)")
                }
                if items.isEmpty { print("no dead letters") }
            }
            DeadLetters.warn(unavailable)
        }
    }

    /// What `show` and `retry` take: one job's id, where to look, and how to print it.
    struct OneDeadLetter: ParsableArguments {
        @Argument(help: "The job's id.") var id: String
        @OptionGroup var scope: ServiceOptions
        @OptionGroup var bus: BusOptions
        @Flag(help: "Print JSON.") var json = false
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One dead letter, its payload with secrets redacted.")

        @OptionGroup var letter: OneDeadLetter

        func run() async throws {
            let id = try DeadLetters.parse(letter.id)
            let (items, unavailable) = try await DeadLetters.list(
                letter.scope.selected, limit: 500, timeout: letter.bus.duration)
            guard let item = items.first(where: { $0.id == id.uuidString.lowercased() }) else {
                DeadLetters.warn(unavailable)
                fail("no dead letter \(letter.id) among the 500 most recent of each service asked", status: 1)
            }
            if letter.json {
                try printJSON(item)
            } else {
                print(
                    """
                    id:          \(item.id)
                    service:     \(item.service)
                    queue:       \(item.queue)
                    kind:        \(item.kind)
                    state:       \(item.state)
                    attempts:    \(item.attempts)/\(item.maxAttempts)
                    dead reason: \(item.deadReason ?? "")
                    last error:  \(item.lastError ?? "")
                    created:     \(item.createdAt.formatted(.iso8601))
                    updated:     \(item.updatedAt.formatted(.iso8601))
                    payload:     \(String(decoding: (try? JSONEncoder().encode(item.payload)) ?? Data(), as: UTF8.self))
                    """)
            }
        }
    }

    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Queue a dead letter again, due now, with a full set of attempts.")

        @OptionGroup var letter: OneDeadLetter

        func run() async throws {
            let id = try DeadLetters.parse(letter.id)
            let services = letter.scope.selected
            let timeout = letter.bus.duration
            // Each service looks in its own tables, all at once; only the owner answers with the job.
            let answers = try await AdminBus.with { client in
                await BusClient.askEach(services) { service in
                    try await client.call(
                        JobAdministration.Retry.self, on: service, .init(id: id), metadata: AdminBus.metadata(),
                        timeout: timeout)
                }
            }
            var retried: JobAdministration.DeadLetter?
            var unavailable: [String] = []
            for (service, answer) in answers {
                switch answer {
                case .success(let job): retried = job
                case .failure(let error) where error.code == .notFound: continue
                case .failure(let error) where error.code == .unavailable || error.code == .deadlineExceeded:
                    unavailable.append(service.rawValue)
                case .failure(let error): throw error
                }
            }
            guard let retried else {
                DeadLetters.warn(unavailable)
                fail("no dead letter \(letter.id) in \(services.map(\.rawValue).joined(separator: ", "))", status: 1)
            }
            if letter.json {
                try printJSON(retried)
            } else {
                let what = "\(retried.id) of \(retried.service) (\(retried.queue), \(retried.kind))"
                print("dead letter \(what) is \(retried.state) again")
            }
        }
    }

    /// What `list --json` prints.
    struct Listing: Encodable {
        let items: [JobAdministration.DeadLetter]
        let unavailable: [String]
    }

    static func parse(_ text: String) throws -> UUID {
        guard let id = UUID(uuidString: text) else { throw ValidationError("\(text) is not a job id (a UUID)") }
        return id
    }

    /// Every asked service's dead letters, most recently dead first, and the services that did
    /// not answer.
    static func list(_ services: [ServiceName], limit: Int, timeout: Duration) async throws
        -> ([JobAdministration.DeadLetter], [String])
    {
        let answers = try await AdminBus.with { client in
            await BusClient.askEach(services) { service in
                try await client.call(
                    JobAdministration.DeadLetters.self, on: service, .init(limit: limit), metadata: AdminBus.metadata(),
                    timeout: timeout)
            }
        }
        var items: [JobAdministration.DeadLetter] = []
        var unavailable: [String] = []
        for (service, answer) in answers {
            switch answer {
            case .success(let list): items += list.items
            case .failure(let error) where error.code == .unavailable || error.code == .deadlineExceeded:
                unavailable.append(service.rawValue)
            case .failure(let error): throw error
            }
        }
        items.sort { ($0.updatedAt, $0.id) > ($1.updatedAt, $1.id) }
        return (items, unavailable)
    }

    /// Names the services that did not answer, on standard error.
    static func warn(_ unavailable: [String]) {
        guard !unavailable.isEmpty else { return }
        FileHandle.standardError.write(
            Data("backplane-admin: no answer from \(unavailable.joined(separator: ", "))\n".utf8))
    }
}
