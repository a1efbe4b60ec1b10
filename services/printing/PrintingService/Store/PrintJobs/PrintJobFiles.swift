import Foundation

/// Rendered job PDFs on disk: `<root>/<job id>.pdf`, and a copy in the hot folder when one is
/// set (a directory the printer's software watches). Each is written through a temporary dot
/// file and a rename, so a reader (or a watcher) never sees half of one.
public struct PrintJobFiles: Sendable {
    /// `DATA_DIR/jobs`.
    public let root: URL
    /// `PRINT_HOT_FOLDER`, if set.
    public let hotFolder: URL?

    /// A store under `root`, copying to `hotFolder` (both created when missing).
    public init(root: URL, hotFolder: URL? = nil) throws {
        self.root = root
        self.hotFolder = hotFolder
        for directory in [root] + (hotFolder.map { [$0] } ?? []) {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
    }

    /// Writes the PDF of job `job` (and its hot-folder copy) and returns its file name.
    public func store(_ pdf: [UInt8], job: UUID) throws -> String {
        let name = "\(job.uuidString.lowercased()).pdf"
        let data = Data(pdf)
        if let hotFolder { try Self.write(data, to: hotFolder.appendingPathComponent(name)) }
        try Self.write(data, to: root.appendingPathComponent(name))
        return name
    }

    /// The bytes of a stored PDF.
    public func read(_ name: String) throws -> Data {
        try Data(contentsOf: root.appendingPathComponent(name))
    }

    private static func write(_ data: Data, to target: URL) throws {
        let temporary = target.deletingLastPathComponent().appendingPathComponent(".\(UUID().uuidString).part")
        try data.write(to: temporary)
        if rename(temporary.path, target.path) != 0 {
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: target.path])
        }
    }
}
