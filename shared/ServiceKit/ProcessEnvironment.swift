import Foundation

/// Typed access to the settings of a process, from the environment (or a dictionary in tests).
public struct ProcessEnvironment: Sendable {
    /// A setting that is present but unusable.
    public struct InvalidSetting: Error, CustomStringConvertible {
        public let name: String
        public let value: String
        public let expected: String
        public var description: String { "\(name)=\(value) is not valid: expected \(expected)" }

        /// A setting `name` whose `value` is not what was `expected`.
        public init(name: String, value: String, expected: String) {
            self.name = name
            self.value = value
            self.expected = expected
        }
    }

    private let values: [String: String]

    /// Reads the process environment.
    public static var process: ProcessEnvironment { ProcessEnvironment(ProcessInfo.processInfo.environment) }

    /// Uses the given values (tests).
    public init(_ values: [String: String]) { self.values = values }

    /// The raw value, or the value of a former name converted to the current unit, or the
    /// setting's default.
    public func string(_ setting: Setting) -> String? {
        if let value = values[setting.name], !value.isEmpty { return value }
        for former in setting.formerly {
            if let value = values[former.name], !value.isEmpty { return former.convert(value) }
        }
        return setting.defaultValue
    }

    /// The settings among `settings` that are given by a former name: each pair names the former
    /// name and the current one (which wins when both are set).
    public func formerNamesInUse(_ settings: [Setting]) -> [(former: Setting.FormerName, current: String)] {
        settings.flatMap { setting in
            setting.formerly.filter { explicit($0.name) != nil }.map { (former: $0, current: setting.name) }
        }
    }

    /// This environment with every secret among `settings` that is given as a file
    /// (`NAME_FILE`, the path of a file holding it, as Docker and Kubernetes secrets are mounted)
    /// read into `NAME`, its trailing line breaks dropped. Refuses, naming `NAME_FILE` and never
    /// the secret, a file that cannot be read or is empty, and both forms given at once.
    public func readingSecretFiles(_ settings: [Setting]) throws -> ProcessEnvironment {
        var values = self.values
        for setting in settings where setting.isSecret && !setting.name.hasSuffix("_FILE") {
            let fileSetting = setting.name + "_FILE"
            guard let path = explicit(fileSetting) else { continue }
            if explicit(setting.name) != nil {
                throw InvalidSetting(
                    name: fileSetting, value: path, expected: "\(setting.name) or \(fileSetting), not both")
            }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw InvalidSetting(
                    name: fileSetting, value: path, expected: "the path of a readable file holding \(setting.name)")
            }
            var secret = String(decoding: data, as: UTF8.self)
            while secret.last?.isNewline == true { secret.removeLast() }
            guard !secret.isEmpty else {
                throw InvalidSetting(name: fileSetting, value: path, expected: "a file holding \(setting.name), not an empty one")
            }
            values[setting.name] = secret
        }
        return ProcessEnvironment(values)
    }

    /// The value, which must be set (or have a default).
    public func required(_ setting: Setting) throws -> String {
        guard let value = string(setting) else {
            throw InvalidSetting(name: setting.name, value: "", expected: "a value (\(setting.help))")
        }
        return value
    }

    /// An integer value within `range`.
    public func int(_ setting: Setting, in range: ClosedRange<Int> = Int.min...Int.max) throws -> Int {
        let raw = try required(setting)
        guard let value = Int(raw), range.contains(value) else {
            throw InvalidSetting(name: setting.name, value: raw, expected: "an integer in \(range)")
        }
        return value
    }

    /// A boolean (`true/false`, `1/0`, `yes/no`).
    public func bool(_ setting: Setting) throws -> Bool {
        let raw = try required(setting).lowercased()
        switch raw {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw InvalidSetting(name: setting.name, value: raw, expected: "true or false")
        }
    }

    /// One of the named values of `T` (its raw values).
    public func choice<T: RawRepresentable & CaseIterable>(_ setting: Setting, as type: T.Type = T.self) throws -> T
    where T.RawValue == String {
        let raw = try required(setting)
        guard let value = T(rawValue: raw.lowercased()) else {
            let names = T.allCases.map(\.rawValue)
            let expected =
                names.count == 2 ? "\(names[0]) or \(names[1])" : "one of \(names.joined(separator: ", "))"
            throw InvalidSetting(name: setting.name, value: raw, expected: expected)
        }
        return value
    }

    /// A value that is set by the operator (not defaulted); `nil` when absent.
    public func explicit(_ name: String) -> String? {
        values[name].flatMap { $0.isEmpty ? nil : $0 }
    }
}
