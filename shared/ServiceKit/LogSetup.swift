import Logging

/// Sets up swift-log once per process from `LOG_LEVEL` and `LOG_FORMAT`.
public enum LogSetup {
    /// Bootstraps the logging system and returns the process's logger.
    public static func bootstrap(process: String, environment: ProcessEnvironment) throws -> Logger {
        let levelText = try environment.required(.logLevel)
        guard let level = Logger.Level(rawValue: levelText.lowercased()) else {
            throw ProcessEnvironment.InvalidSetting(
                name: "LOG_LEVEL", value: levelText,
                expected: "one of trace, debug, info, notice, warning, error, critical")
        }
        let format = try environment.required(.logFormat)
        switch format {
        case "json":
            LoggingSystem.bootstrap { _ in JSONLogHandler(label: process, level: level) }
        case "text":
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardOutput(label: label)
                handler.logLevel = level
                return handler
            }
        default:
            throw ProcessEnvironment.InvalidSetting(name: "LOG_FORMAT", value: format, expected: "json or text")
        }
        return Logger(label: process)
    }
}
