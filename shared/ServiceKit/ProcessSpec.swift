import Foundation

/// What an executable is, for `--help`: its name, one line about it, and its settings.
public struct ProcessSpec: Sendable {
    /// The executable name, also the `service` field of its log lines.
    public let name: String
    /// One sentence about what it does.
    public let summary: String
    /// Every environment variable it reads.
    public let settings: [Setting]
    /// What `--probe` checks.
    public let probeHelp: String

    /// Describes an executable.
    public init(name: String, summary: String, settings: [Setting], probeHelp: String) {
        self.name = name
        self.summary = summary
        self.settings = settings
        self.probeHelp = probeHelp
    }

    /// The `--help` text.
    public var helpText: String {
        let width = (settings.map(\.name.count).max() ?? 10) + 2
        let defaultWidth = min(40, (settings.map { ($0.defaultValue ?? "(unset)").count }.max() ?? 8) + 2)
        var text = """
            \(name): \(summary)

            Usage: \(name) [--help] [--version] [--probe] [--settings-json]
              --help    print this text and exit
              --settings-json  print the settings as JSON (for docs/settings.md) and exit
              --version print the version and the git commit (BACKPLANE_COMMIT) and exit
              --probe   \(probeHelp); exit 0 if so, 1 if not (container health checks)

            Settings (environment variables; default in the middle):

            """
        for setting in settings {
            let shown = setting.isSecret ? redact(setting.defaultValue) : (setting.defaultValue ?? "(unset)")
            text += "  " + setting.name.padding(width) + shown.padding(defaultWidth) + setting.help + "\n"
        }
        return text
    }

    /// The settings as JSON, for the generated reference (deploy/scripts/settings-doc.py).
    public var settingsJSON: String {
        struct Entry: Encodable {
            struct Former: Encodable {
                let name: String
                let scale: Int
            }
            let name: String
            let `default`: String?
            let help: String
            let secret: Bool
            let formerly: [Former]
        }
        struct Document: Encodable {
            let name: String
            let summary: String
            let settings: [Entry]
        }
        let document = Document(
            name: name, summary: summary,
            settings: settings.map { setting in
                Entry(
                    name: setting.name,
                    default: setting.isSecret ? setting.defaultValue.map { redact($0) } : setting.defaultValue,
                    help: setting.help, secret: setting.isSecret,
                    formerly: setting.formerly.map { Entry.Former(name: $0.name, scale: $0.scale) })
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(document)) ?? Data("{}".utf8), as: UTF8.self)
    }

    private func redact(_ value: String?) -> String {
        guard let value else { return "(unset)" }
        // postgres://user:secret@host → postgres://user:***@host
        guard let at = value.firstIndex(of: "@"), let scheme = value.range(of: "://"),
            let colon = value[scheme.upperBound..<at].firstIndex(of: ":")
        else { return value }
        return String(value[..<value.index(after: colon)]) + "***" + String(value[at...])
    }
}

extension String {
    fileprivate func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
