import Foundation
import Testing

/// Which layers of the suite run. `make test` runs all of them; `make test-unit`
/// (`TEST_LAYERS=unit`) runs only what needs neither PostgreSQL nor the executables: the pure
/// rules, codecs and in-process sockets, in seconds and on a machine without a database.
///
/// A test reaches the database or the processes through its target's fixture, and every fixture
/// asks ``requireDatabase()`` or ``requireProcesses()`` first; left out, the test is reported
/// cancelled with the reason, never passed.
public enum TestLayers {
    /// The layers named by `TEST_LAYERS` (comma-separated: `unit`, `database`, `system`); all
    /// when it is unset or empty.
    public static let enabled: Set<String> = {
        let text = ProcessInfo.processInfo.environment["TEST_LAYERS"] ?? ""
        let named = Set(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
        return named.isEmpty ? ["unit", "database", "system"] : named
    }()

    /// Cancels the running test unless the database layer runs.
    public static func requireDatabase() throws {
        guard enabled.contains("database") || enabled.contains("system") else {
            try Test.cancel("needs PostgreSQL: left out by TEST_LAYERS=\(enabled.sorted().joined(separator: ","))")
        }
    }

    /// Cancels the running test unless the system layer runs: for a test that measures real
    /// round trips and needs the cores to itself (make test runs it alone; the parallel unit run
    /// would starve it).
    public static func requireQuietMachine() throws {
        guard enabled.contains("system") else {
            try Test.cancel("measures round trips on a quiet machine: left out by TEST_LAYERS=\(enabled.sorted().joined(separator: ","))")
        }
    }

    /// Cancels the running test unless the system layer (the real executables) runs.
    public static func requireProcesses() throws {
        guard enabled.contains("system") else {
            try Test.cancel(
                "starts the executables: left out by TEST_LAYERS=\(enabled.sorted().joined(separator: ","))")
        }
    }
}
