import Logging
import Telemetry

/// Sets up swift-log once per process from `LOG_LEVEL` and `LOG_FORMAT`.
public enum LogSetup {
    /// What `LOG_FORMAT` may say.
    enum Format: String, CaseIterable {
        /// One JSON object per line.
        case json
        /// swift-log's plain text, for a terminal.
        case text
    }

    /// Reads `LOG_LEVEL` and `LOG_FORMAT` as ``bootstrap(process:environment:traced:)`` does,
    /// without setting anything up (`backplane-admin check-config`).
    public static func check(_ environment: ProcessEnvironment) throws {
        _ = try environment.choice(.logLevel, as: Logger.Level.self)
        _ = try environment.choice(.logFormat, as: Format.self)
    }

    /// Bootstraps the logging system and returns the process's logger. With `traced`, every
    /// line logged inside a span carries its `traceId` and `spanId` (``Traces/logMetadata``).
    public static func bootstrap(process: String, environment: ProcessEnvironment, traced: Bool = false) throws
        -> Logger
    {
        let level = try environment.choice(.logLevel, as: Logger.Level.self)
        let provider = traced ? Traces.logMetadata : nil
        switch try environment.choice(.logFormat, as: Format.self) {
        case .json:
            LoggingSystem.bootstrap(
                { _, provider in JSONLogHandler(label: process, level: level, metadataProvider: provider) },
                metadataProvider: provider)
        case .text:
            LoggingSystem.bootstrap(
                { label, provider in
                    var handler = StreamLogHandler.standardOutput(label: label, metadataProvider: provider)
                    handler.logLevel = level
                    return handler
                }, metadataProvider: provider)
        }
        return Logger(label: process)
    }
}
