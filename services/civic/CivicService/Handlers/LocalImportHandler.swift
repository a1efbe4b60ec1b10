import CivicContract
import Contract
import ServiceKit

/// `import_local`: an editor's local-format file, applied by the ``LocalImporter``.
public struct LocalImportHandler: Sendable {
    let importer: LocalImporter

    public init(importer: LocalImporter) { self.importer = importer }

    /// `import_local`, for `civic_editor`s.
    public func apply(_ file: Civic.LocalFile, _ context: OperationContext) async throws -> Civic.ImportLocal.Reply {
        _ = try context.requireRole(.civicEditor)
        return try await importer.apply(file)
    }
}
