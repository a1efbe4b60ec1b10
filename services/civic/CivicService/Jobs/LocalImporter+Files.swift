import CivicContract
import Contract
import Foundation
import ServiceKit

extension LocalImporter {
    /// `CIVIC_LOCAL_FILES`: local-format files imported at start (the sample council under `make up`).
    public static let filesSetting = Setting(
        "CIVIC_LOCAL_FILES", default: nil,
        "comma-separated paths of politimap-local/1 files (bodies without an API) that civic imports at start, "
            + "each in one transaction; the same file again changes nothing; a bad file stops civic")

    /// The files `CIVIC_LOCAL_FILES` names, read and checked whole: a file that cannot be read or
    /// breaks a rule of the format is a bad setting naming the file and the field, so the process
    /// stops at start (exit 78) before anything of it is written.
    public static func configuredFiles(_ environment: ProcessEnvironment) throws -> [Civic.LocalFile] {
        guard let list = environment.string(filesSetting) else { return [] }
        let paths = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return try paths.map { path in
            func refused(_ rule: String) -> ProcessEnvironment.InvalidSetting {
                .init(name: filesSetting.name, value: path, expected: rule)
            }
            guard let data = FileManager.default.contents(atPath: path) else { throw refused("a readable file") }
            do throws(ServiceError) {
                let file = try Wire.decodePayload(Civic.LocalFile.self, from: Array(data))
                _ = try LocalFormat.records(file)
                return file
            } catch {
                guard case .string(let field)? = error.details?["field"] else {
                    throw refused("a politimap-local/1 file (\(error.message))")
                }
                throw refused("a politimap-local/1 file (\(field): \(error.message))")
            }
        }
    }
}
