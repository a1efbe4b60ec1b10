import Contract
import Foundation
import ServiceKit
import Store

/// The `printing` service: the printer's postage file today; images, print-ready postcards and
/// the print-job queue are still to come (docs/printing.md).
public enum PrintingService {
    static let postageFile = Setting(
        "POSTAGE_FILE", default: nil,
        "postage XML loaded at start unless already stored (default: the shipped sample; make up sets it)")

    /// What the executable is and reads, for `--help`.
    public static let spec = ProcessSpec(
        name: "printing",
        summary: "MDP worker for postage, images and print-ready postcards",
        settings: WorkerHost.settings + [postageFile],
        probeHelp: "check that a printing worker answers its health operation through the broker")

    /// The migrations shipped with the service (`Migrations/NNNN_name.sql`).
    public static func migrations() throws -> [Migration] {
        try Migration.load(from: try resource("Migrations", nil))
    }

    /// The postage file schema (`postage.xsd`).
    public static func postageSchemaURL() throws -> URL { try resource("postage", "xsd") }

    /// The sample postage file that ships with the service.
    public static func samplePostageURL() throws -> URL { try resource("postage-sample", "xml") }

    static func resource(_ name: String, _ type: String?) throws -> URL {
        guard let url = Bundle.module.url(forResource: name, withExtension: type) else {
            throw ServiceError(.internal, "\(name)\(type.map { ".\($0)" } ?? "") is missing from printing's resources")
        }
        return url
    }

    /// Its migrations and operations; the health operation is built in.
    public static let definition = WorkerDefinition(service: .printing, migrations: migrations) { router, resources in
        let desk = PostageDesk(
            store: PostageStore(client: resources.postgres, logger: resources.logger),
            schema: Array(try Data(contentsOf: try postageSchemaURL())), clock: resources.clock,
            logger: resources.logger)
        let path = resources.environment.string(postageFile)
        try await desk.bootstrap(from: try path.map { URL(fileURLWithPath: $0) } ?? samplePostageURL())
        register(postage: desk, on: &router)
        return []
    }

    /// Registers the service's operations.
    public static func register(postage: PostageDesk, on router: inout OperationRouter) {
        router.register(Printing.GetPostage.self) { _, _ in try await postage.active() }
        router.register(Printing.PostageRates.self) { request, _ in try await postage.rates(request) }
        router.register(Printing.LoadPostage.self) { request, context in
            let actor = try context.requireRole("printer")
            return try await postage.load(xml: request.xml, source: "upload \(actor.userId)")
        }
    }
}
