import Contract
import Foundation
import ServiceKit
import Store

/// The `printing` service: the printer's postage file and image uploads today; print-ready
/// postcards and the print-job queue are still to come (docs/printing.md).
public enum PrintingService {
    static let postageFile = Setting(
        "POSTAGE_FILE", default: nil,
        "postage XML loaded at start unless already stored (default: the shipped sample; make up sets it)")

    static let dataDirectory = Setting(
        "DATA_DIR", default: ".data/printing", "where image originals are kept (originals/<sha256 prefix>/...)")
    static let imageMaxBytes = Setting("IMAGE_MAX_BYTES", default: "25000000", "largest image upload, in bytes")
    static let imageMaxMegapixels = Setting(
        "IMAGE_MAX_MEGAPIXELS", default: "50", "largest image upload, in megapixels (decompression bomb guard)")

    /// What the executable is and reads, for `--help`.
    public static let spec = ProcessSpec(
        name: "printing",
        summary: "MDP worker for postage, images and print-ready postcards",
        settings: WorkerHost.settings + [postageFile, dataDirectory, imageMaxBytes, imageMaxMegapixels],
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
        let environment = resources.environment
        let limits = ImageLimits(
            maxBytes: try environment.int(imageMaxBytes, in: 1_000...500_000_000),
            maxPixels: try environment.int(imageMaxMegapixels, in: 1...1_000) * 1_000_000)
        let originals = try OriginalsDirectory(
            root: URL(fileURLWithPath: try environment.required(dataDirectory)).appendingPathComponent("originals"))
        let images = ImageLibrary(
            client: resources.postgres, originals: originals, limits: limits, clock: resources.clock,
            logger: resources.logger)
        register(postage: desk, images: images, on: &router)
        let previews = PostcardPreviews(images: images, postage: desk)
        router.register(Printing.PreviewPostcard.self) { request, context in
            try await previews.preview(request, actor: try context.requireActor())
        }
        return []
    }

    /// Registers the service's operations.
    public static func register(postage: PostageDesk, images: ImageLibrary, on router: inout OperationRouter) {
        router.register(Printing.UploadImage.self) { request, context in
            try await images.upload(request, actor: try context.requireActor())
        }
        router.register(Printing.GetImage.self) { request, context in
            try await images.info(request.id, actor: try context.requireActor())
        }
        router.register(Printing.GetPostage.self) { _, _ in try await postage.active() }
        router.register(Printing.PostageRates.self) { request, _ in try await postage.rates(request) }
        router.register(Printing.LoadPostage.self) { request, context in
            let actor = try context.requireRole("printer")
            return try await postage.load(xml: request.xml, source: "upload \(actor.userId)")
        }
    }
}
