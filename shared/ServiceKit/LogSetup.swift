import Logging

/// Sets up swift-log once per process from `LOG_LEVEL` and `LOG_FORMAT`.
public enum LogSetup {
    /// What `LOG_FORMAT` may say.
    enum Format: String, CaseIterable {
        /// One JSON object per line.
        case json
        /// swift-log's plain text, for a terminal.
        case text
    }

    /// Bootstraps the logging system and returns the process's logger.
    public static func bootstrap(process: String, environment: ProcessEnvironment) throws -> Logger {
        let level = try environment.choice(.logLevel, as: Logger.Level.self)
        switch try environment.choice(.logFormat, as: Format.self) {
        case .json:
            LoggingSystem.bootstrap { _ in JSONLogHandler(label: process, level: level) }
        case .text:
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardOutput(label: label)
                handler.logLevel = level
                return handler
            }
        }
        return Logger(label: process)
    }
}
