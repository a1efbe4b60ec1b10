import Foundation

/// What build a process is: Backplane's version, and the git commit it was built from.
///
/// The commit is given at run time, since a Swift build has no portable way to stamp it:
/// `BACKPLANE_COMMIT` (set by `make up` from `git rev-parse`, and by the container image from its
/// build argument), else `unknown`.
public enum BuildInfo {
    /// Backplane's version (the stop of the project that made it).
    public static let version = "0.34.0"

    /// The git commit, or `unknown`.
    public static func commit(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        guard let commit = environment["BACKPLANE_COMMIT"]?.trimmingCharacters(in: .whitespaces),
            !commit.isEmpty, commit.allSatisfy({ $0.isHexDigit })
        else { return "unknown" }
        return commit
    }

    /// `NAME VERSION (commit COMMIT)`, what `--version` prints.
    public static func line(_ name: String) -> String { "\(name) \(version) (commit \(commit()))" }
}
