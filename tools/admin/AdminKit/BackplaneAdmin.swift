import ArgumentParser
import Contract
import Foundation
import Logging
import ServiceKit
import Store

/// `backplane-admin`: an operator's tasks on a running system. Everything a service owns is
/// asked of that service over the bus (its rules and its schema stay its own); only `migrate`
/// reaches PostgreSQL, with the migrations the services ship.
public struct BackplaneAdmin: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "backplane-admin",
        abstract: "Operator tasks for Backplane: admin accounts, dead letters, job queues, migrations, settings.",
        discussion: """
            The bus commands connect to the broker at BROKER_URL (default tcp://127.0.0.1:5555) and \
            act as an operator with the admin role. `migrate` uses DATABASE_URL. Exit status: 0 done, \
            1 refused or failed, 64 bad arguments, 78 a bad setting.
            """,
        subcommands: [
            CreateAdmin.self, DeadLetters.self, Jobs.self, Migrate.self, CheckConfig.self, Backup.self, Restore.self,
        ])

    public init() {}

    /// Parses the command line, runs the subcommand and exits. (ArgumentParser's `main()`
    /// resolves to its synchronous form from an executable's top-level code.)
    public static func start() async -> Never {
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
            exit()
        } catch {
            exit(withError: error)
        }
    }
}

/// What every bus command takes.
struct BusOptions: ParsableArguments {
    @Option(help: "Seconds to wait for each service's answer.")
    var timeout: Int = 10

    func validate() throws {
        guard (1...600).contains(timeout) else { throw ValidationError("--timeout must be 1 to 600 seconds") }
    }

    var duration: Duration { .seconds(timeout) }
}

/// The bus as the tool uses it.
enum AdminBus {
    /// Who the services see: an operator with the admin role (the bus is inside the trust
    /// boundary; the gateway is what checks tokens).
    static let actor = Actor(userId: "backplane-admin", roles: [Role.admin])

    /// Fresh metadata for one call.
    static func metadata() -> RequestMetadata {
        RequestMetadata(requestId: "backplane-admin-\(UUID().uuidString.lowercased())", actor: actor)
    }

    /// Warnings and worse, on standard error: standard output is the command's answer.
    static let logger: Logger = {
        var logger = Logger(label: "backplane-admin") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .warning
        return logger
    }()

    /// Runs `body` with a bus client on BROKER_URL; a bad BROKER_URL exits 78.
    static func with<T: Sendable>(_ body: @Sendable (BusClient) async throws -> T) async throws -> T {
        try await guarded {
            try await ProbeClient.call(environment: ProcessEnvironment.process, logger: logger, body)
        }
    }
}

/// Runs `body`, turning what the tool refuses into a message on standard error and an exit
/// status: a bad setting 78 (as the services exit), a service's refusal or failure 1.
func guarded<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as ProcessEnvironment.InvalidSetting {
        fail("\(error)", status: 78)
    } catch let error as StoreError where error.code == .invalidDatabaseURL {
        fail(error.message, status: 78)  // names DATABASE_URL, its password redacted
    } catch let error as ServiceError {
        fail("\(error.code.rawValue): \(error.message)", status: 1)
    } catch let error as ExitCode {
        throw error
    } catch let error as CleanExit {
        throw error
    } catch let error as ValidationError {
        throw error
    } catch {
        fail(SafeErrorDescription.of(error), status: 1)
    }
}

/// Prints `message` on standard error and exits with `status`.
func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("backplane-admin: \(message)\n".utf8))
    exit(status)
}

/// JSON as the tool prints it: sorted keys, ISO 8601 dates.
func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
    encoder.dateEncodingStrategy = .iso8601
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}
