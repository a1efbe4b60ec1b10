import Foundation
import Logging
import ServiceLifecycle

/// The whole life of an executable: arguments, logging, then `run` (or `--probe`), and the exit code.
///
/// Executables stay a few lines long: `await Launcher.main(spec, probe: ..., run: ...)`.
public enum Launcher {
    /// What a process body gets.
    public typealias Body = @Sendable (ProcessEnvironment, Logger) async throws -> Void

    /// Runs the executable described by `spec` and exits.
    public static func main(_ spec: ProcessSpec, probe: @escaping Body, run: @escaping Body) async -> Never {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.contains("--help") || arguments.contains("-h") {
            print(spec.helpText, terminator: "")
            exit(0)
        }
        if arguments == ["--version"] {
            print(BuildInfo.line(spec.name))
            exit(0)
        }
        if arguments == ["--settings-json"] {
            print(spec.settingsJSON)
            exit(0)
        }
        let probing = arguments == ["--probe"]
        if !arguments.isEmpty && !probing {
            FileHandle.standardError.write(Data("\(spec.name): unknown arguments \(arguments); see --help\n".utf8))
            exit(64)
        }
        let environment: ProcessEnvironment
        do {
            environment = try ProcessEnvironment.process.readingSecretFiles(spec.settings)
        } catch {
            FileHandle.standardError.write(Data("\(spec.name): \(error)\n".utf8))
            exit(78)
        }
        // Tracing is read only by processes that list its settings, and only when not probing.
        let tracing =
            !probing && spec.settings.contains(.otlpEndpoint)
            && !(environment.string(.otlpEndpoint) ?? "").isEmpty
        let logger: Logger
        let exporter: (any Service)?
        do {
            logger = try LogSetup.bootstrap(process: spec.name, environment: environment, traced: tracing)
            exporter = tracing ? try TracingSetup.bootstrap(process: spec.name, environment: environment, logger: logger) : nil
        } catch {
            FileHandle.standardError.write(Data("\(spec.name): \(error)\n".utf8))
            exit(78)
        }
        warnAboutFormerNames(spec, environment, logger)
        do {
            if probing {
                try await probe(environment, logger)
            } else {
                logger.info("process", metadata: ["version": "\(BuildInfo.version)", "commit": "\(BuildInfo.commit())"])
                let exporting = exporter.map { ServiceGroup(services: [$0], logger: logger) }
                let exported = exporting.map { group in Task { try? await group.run() } }
                do {
                    try await run(environment, logger)
                } catch {
                    await exporting?.triggerGracefulShutdown()
                    _ = await exported?.value
                    throw error
                }
                await exporting?.triggerGracefulShutdown()
                _ = await exported?.value
            }
            exit(0)
        } catch let error as ProcessEnvironment.InvalidSetting {
            logger.critical("bad setting", metadata: ["error": "\(SafeErrorDescription.of(error))"])
            exit(78)
        } catch {
            logger.critical(
                probing ? "probe failed" : "stopped by an error",
                metadata: ["error": "\(SafeErrorDescription.of(error))"])
            exit(1)
        }
    }

    /// Logs a warning for every setting given by a name it had before, naming the one to use.
    public static func warnAboutFormerNames(_ spec: ProcessSpec, _ environment: ProcessEnvironment, _ logger: Logger) {
        for (former, current) in environment.formerNamesInUse(spec.settings) {
            logger.warning(
                "setting renamed: use \(current)",
                metadata: [
                    "setting": "\(former.name)", "use": "\(current)",
                    "conversion": former.scale == 1 ? "same value" : "value × \(former.scale)",
                    "ignored": "\(environment.explicit(current) != nil)",
                ])
        }
    }
}
