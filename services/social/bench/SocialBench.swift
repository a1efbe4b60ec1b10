import Contract
import Foundation
import Logging
import ServiceKit
import SocialContract
import SocialService
import Store
import Synchronization
import ZeroMQ

/// `social-bench`: Gifter's reads against the PostgreSQL of `DATABASE_URL`, through the service's
/// own operation table (decode, rules, SQL, encode; no broker, no HTTP), each at a fixed rate
/// (open loop: a request's latency counts from when it was due, so a stall shows in every
/// request that waited behind it):
///
/// - `directory`: `search_users` over `--users` people (names by prefix, word start and typo,
///   whole e-mail addresses), as random callers;
/// - `catalog`: `search_catalog` over the sandbox catalogue (words, typos, category and price
///   filters, a second page now and then);
/// - `launch`: the launch pull-down of a user with friends and a wish list: `get_addresses`,
///   `list_favourites` and `list_friends` at once, timed until the last of the three answers.
///
/// The people, friendships and favourites it needs are written once, straight into social's
/// tables (rows named `social-bench-user-N`, kept for the next run).
enum SocialBench {
    static let usage = """
        social-bench: Gifter's searches and launch pull-down against DATABASE_URL (the service's operations, no HTTP)

          --users N      people in the directory (default 100000)
          --rate N       requests per second of each case (default 500)
          --seconds N    length of each case (default 20)
          --launchers N  users with friends and favourites for the launch case (default 2000)
          --friends N    friends of each of them (default 30)
          --favourites N wish-list items of each of them (default 20)
          --only CASE    directory, catalog or launch (default: all three)

        """

    static let logger: Logger = {
        var logger = Logger(label: "social-bench")
        logger.logLevel = .error
        return logger
    }()

    static func main(_ arguments: [String]) async -> Int32 {
        var options: [String: Int] = [
            "users": 100_000, "rate": 500, "seconds": 20, "launchers": 2_000, "friends": 30, "favourites": 20,
        ]
        var only: String?
        var index = 0
        while index < arguments.count {
            let key = arguments[index].hasPrefix("--") ? String(arguments[index].dropFirst(2)) : ""
            if key == "only", index + 1 < arguments.count,
                ["directory", "catalog", "launch"].contains(arguments[index + 1])
            {
                only = arguments[index + 1]
                index += 2
                continue
            }
            guard options[key] != nil, index + 1 < arguments.count, let value = Int(arguments[index + 1]), value > 0
            else {
                print(usage, terminator: "")
                return arguments[index] == "--help" ? 0 : 64
            }
            options[key] = value
            index += 2
        }
        guard options["launchers"]! <= options["users"]!, options["friends"]! < options["users"]! else {
            FileHandle.standardError.write(Data("social-bench: --launchers and --friends must be below --users\n".utf8))
            return 64
        }
        do {
            try await run(options, only: only)
            return 0
        } catch {
            // The bench's own SQL and the server's message (no secret goes into either).
            FileHandle.standardError.write(Data("social-bench: \(String(reflecting: error))\n".utf8))
            return 1
        }
    }

    static func run(_ options: [String: Int], only: String?) async throws {
        try await BenchDatabase.with(maximumConnections: 40, logger: logger) { client in
            let clock = SystemClock()
            let log = EventLog(client: client, clock: clock, logger: logger)
            try await log.migrate()
            try await Migrator(client: client, schema: "social", logger: logger).migrate(SocialService.migrations())
            let publisher = EventPublisher(log: log, producer: .social, context: Context(), endpoint: "tcp://127.0.0.1:1")
            var router = OperationRouter(service: .social, logger: logger, clock: clock)
            let parts = SocialService.Parts(
                people: PeopleStore(client: client, logger: logger), friends: FriendStore(client: client, logger: logger),
                catalog: SandboxCatalogStore(client: client, logger: logger),
                favourites: FavouriteStore(client: client, logger: logger),
                contacts: ContactStore(client: client, logger: logger),
                addresses: AddressStore(client: client, logger: logger), transactions: Transactions(client, logger: logger),
                events: publisher, clock: clock)
            SocialService.register(parts, on: &router)
            let seed = SeedStore(client: client, users: options["users"]!)
            let runner = OpenLoop(rate: options["rate"]!, seconds: options["seconds"]!)
            let cases = Cases(router: router, users: options["users"]!, launchers: options["launchers"]!)
            if only == nil || only == "directory" {
                try await seed.people()
                try await runner.run("directory search over \(options["users"]!) users") { try await cases.directory($0) }
            }
            if only == nil || only == "catalog" {
                try await runner.run("catalogue search over the sandbox catalogue") { try await cases.catalog($0) }
            }
            if only == nil || only == "launch" {
                try await seed.people()
                try await seed.launchers(
                    options["launchers"]!, friends: options["friends"]!, favourites: options["favourites"]!)
                try await runner.run(
                    "launch pull-down (addresses + favourites + friends; \(options["friends"]!) friends, \(options["favourites"]!) favourites)"
                ) { try await cases.launch($0) }
            }
        }
    }
}

/// The bench's user number `n` as a user id (the same on every run; the seed's SQL writes the same).
func benchUser(_ n: Int) -> UUID {
    let hex = String(n, radix: 16)
    return UUID(uuidString: "5bbe0000-0000-4000-8000-" + String(repeating: "0", count: 12 - hex.count) + hex)!
}
