import Foundation

/// Rendered job PDFs on disk: `<root>/<job id>.pdf`, written through a temporary name and a
/// rename, so a reader (or a hot folder) never sees half of one.
public struct PrintJobFiles: Sendable {
    /// `DATA_DIR/jobs`.
    public let root: URL

    /// A store under `root` (created when missing).
    public init(root: URL) throws {
        self.root = root
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    /// Writes the PDF of job `job` and returns its file name (relative to `root`).
    public func store(_ pdf: [UInt8], job: UUID) throws -> String {
        let name = "\(job.uuidString.lowercased()).pdf"
        let temporary = root.appendingPathComponent(".\(UUID().uuidString).part")
        try Data(pdf).write(to: temporary)
        if rename(temporary.path, root.appendingPathComponent(name).path) != 0 {
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: name])
        }
        return name
    }

    /// The bytes of a stored PDF.
    public func read(_ name: String) throws -> Data {
        try Data(contentsOf: root.appendingPathComponent(name))
    }
}
