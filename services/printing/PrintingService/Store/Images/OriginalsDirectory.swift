import Foundation

/// Original uploads on disk, named by their SHA-256: `<root>/ab/abcdef....jpg`. A file is written
/// once, through a temporary name and a rename, so a reader never sees half of one and two
/// replicas writing the same bytes at once both end with the same whole file.
public struct OriginalsDirectory: Sendable {
    /// `DATA_DIR/originals`.
    public let root: URL

    /// A store under `root` (created when missing).
    public init(root: URL) throws {
        self.root = root
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    /// Where the original with `sha256` and `format` lives.
    public func url(sha256: String, format: ImageFormat) -> URL {
        root.appendingPathComponent(String(sha256.prefix(2)), isDirectory: true)
            .appendingPathComponent("\(sha256).\(format.fileExtension)")
    }

    /// Writes `bytes` unless a file with that content address is already there.
    public func store(_ bytes: [UInt8], sha256: String, format: ImageFormat) throws -> URL {
        let target = url(sha256: sha256, format: format)
        if FileManager.default.fileExists(atPath: target.path) { return target }
        try FileManager.default.createDirectory(
            at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        let temporary = target.deletingLastPathComponent().appendingPathComponent(".\(UUID().uuidString).part")
        try Data(bytes).write(to: temporary)
        if rename(temporary.path, target.path) != 0 {
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: target.path])
        }
        return target
    }
}
