import AuthContract
import Contract
import Foundation
import OrdersContract
import PrintingContract
import ServiceKit
import Store

/// The `printing` service: the printer's postage file, image uploads, print-ready postcards and
/// previews, and the print jobs of paid postcard orders (docs/printing.md).
public enum PrintingService {
    static let postageFile = Setting(
        "POSTAGE_FILE", default: nil,
        "postage XML loaded at start unless already stored (default: the shipped sample; make up sets it)")

    static let dataDirectory = Setting(
        "DATA_DIR", default: ".data/printing", "where image originals are kept (originals/<sha256 prefix>/...)")
    static let imageMaxBytes = Setting("IMAGE_MAX_BYTES", default: "25000000", "largest image upload, in bytes")
    static let imageMaxMegapixels = Setting(
        "IMAGE_MAX_MEGAPIXELS", default: "50", "largest image upload, in megapixels (decompression bomb guard)")
    static let renderAttempts = Setting(
        "PRINT_RENDER_ATTEMPTS", default: "5", "render attempts of a print job before it fails (and orders refunds)")
    static let renderBackoff = Setting(
        "PRINT_RENDER_BACKOFF_MS", default: "2000", "delay after a job's first failed render; doubles per attempt")
    static let hotFolder = Setting(
        "PRINT_HOT_FOLDER", default: nil, "also write each ready job's PDF here (a folder the printer watches)")
    static let renderThreads = Setting(
        "RENDER_THREADS", default: nil,
        "threads that decode, edit and draw postcards (previews and print jobs); default: one per core")
    static let renderQueueLimit = Setting(
        "RENDER_QUEUE_LIMIT", default: "32",
        "previews that may wait for a render thread; more are answered unavailable with Retry-After at once")
    static let renderPoll = Setting(
        "PRINT_RENDER_POLL_MS", default: "500", "how often an idle renderer looks for due print jobs")
    static let renderLease = Setting(
        "PRINT_RENDER_LEASE_MS", default: "60000",
        "how long a renderer's claim on a job holds: a job whose renderer died is rendered again after it")
    static let ecardPublicURL = Setting(
        "ECARD_PUBLIC_URL", default: "http://127.0.0.1:8080/v1/ecards",
        "public base URL of e-card images (the gateway's /v1/ecards); a card's link is this/<token>")
    static let publicBaseURL = Setting(
        "PUBLIC_BASE_URL", default: "http://127.0.0.1:8080",
        "public base of the gateway, for share pages' absolute links (og:url, og:image): SCHEME://HOST[:PORT]")
    static let ecardDPI = Setting("ECARD_DPI", default: "150", "resolution of each side of an e-card image, in dpi")
    static let gazetteerFile = Setting(
        "GAZETTEER_FILE", default: ".data/gazetteer/cities15000.tsv",
        "the places greetings are suggested for (GeoNames cities of 15,000+; made by deploy/scripts/gazetteer.sh)")
    static let uploadOpenLimit = Setting(
        "UPLOAD_OPEN_LIMIT", default: "10", "unfinished resumable uploads one user may hold (one more is a 429)")
    static let uploadLifetime = Setting(
        "UPLOAD_LIFETIME_S", default: "86400",
        "seconds an unfinished resumable upload is kept after its last append",
        formerly: [.init("UPLOAD_LIFETIME_HOURS", scale: 3_600)])
    static let uploadSweep = Setting(
        "UPLOAD_SWEEP_S", default: "300", "how often expired unfinished uploads are deleted, in seconds",
        formerly: [.init("UPLOAD_SWEEP_SECONDS")])

    /// What the executable is and reads, for `--help`.
    public static let spec = ProcessSpec(
        name: "printing",
        summary: "MDP worker for postage, images and print-ready postcards",
        settings: WorkerHost.settings + [
            postageFile, dataDirectory, imageMaxBytes, imageMaxMegapixels, renderAttempts, renderBackoff, renderPoll, renderLease,
            hotFolder, renderThreads, renderQueueLimit, ecardPublicURL, ecardDPI, publicBaseURL, gazetteerFile,
            uploadOpenLimit, uploadLifetime, uploadSweep,
        ],
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
        let dataRoot = URL(fileURLWithPath: try environment.required(dataDirectory))
        let originals = try OriginalsDirectory(root: dataRoot.appendingPathComponent("originals"))
        let threads =
            try environment.string(renderThreads).map { _ in try environment.int(renderThreads, in: 1...256) }
            ?? ProcessInfo.processInfo.activeProcessorCount
        let images = ImageLibrary(
            client: resources.postgres, originals: originals, limits: limits, clock: resources.clock,
            logger: resources.logger,
            pool: DedicatedThreadPool(
                name: "render", threads: threads, queueLimit: try environment.int(renderQueueLimit, in: 0...100_000)))
        register(postage: desk, images: images, on: &router)
        let openUploads = try environment.int(uploadOpenLimit, in: 1...10_000)
        let uploadSeconds = try environment.int(uploadLifetime, in: 60...31_536_000)
        let sweepSeconds = try environment.int(uploadSweep, in: 1...86_400)
        let uploads = UploadBook(
            client: resources.postgres, images: images,
            policy: UploadPolicy(
                maxLength: Int64(limits.maxBytes), maxOpenPerOwner: openUploads,
                lifetime: Duration.seconds(uploadSeconds)),
            clock: resources.clock, logger: resources.logger)
        register(
            variants: try ImageVariants(images: images, root: dataRoot.appendingPathComponent("variants")),
            uploads: uploads, on: &router)
        let sweeper = UploadSweeper(
            book: uploads, clock: resources.clock, interval: Duration.seconds(sweepSeconds), logger: resources.logger)
        let drafts = DraftBook(
            client: resources.postgres, images: images, clock: resources.clock, logger: resources.logger)
        register(drafts: drafts, images: images, bus: resources.bus, on: &router)
        let previews = PostcardPreviews(images: images, postage: desk)
        router.register(Printing.PreviewPostcard.self) { request, context in
            try await previews.preview(request, actor: try context.requireActor())
        }
        let publisher = try resources.publisher()
        var jobs = PrintJobBook(
            client: resources.postgres,
            queue: JobQueue(
                client: resources.postgres, schema: "printing", table: "render_jobs", clock: resources.clock,
                backoff: Backoff(base: Double(try environment.int(renderBackoff, in: 1...3_600_000)) / 1000),
                logger: resources.logger),
            events: resources.events, logger: resources.logger, announce: publisher.announce)
        jobs.renderAttempts = try environment.int(renderAttempts, in: 1...100)
        let book = jobs
        let (wake, nudge) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let cards = PrintJobCards(images: images, postage: desk)
        let files = try PrintJobFiles(
            root: dataRoot.appendingPathComponent("jobs"),
            hotFolder: environment.string(hotFolder).map { URL(fileURLWithPath: $0) })
        var renderer = PrintJobRenderer(book: book, cards: cards, files: files, wake: wake, logger: resources.logger)
        register(printJobs: PrintJobDesk(book: book, cards: cards, files: files), on: &router)
        renderer.pollInterval = .milliseconds(try environment.int(renderPoll, in: 5...60_000))
        renderer.lease = Double(try environment.int(renderLease, in: 1_000...3_600_000)) / 1_000
        let ecards = try ecardRenderer(resources, queue: book.queue, images: images, publisher: publisher)
        register(gallery: Gallery(images: images, logger: resources.logger), ecards: ecards.renderer.book, on: &router)
        let shares = ShareDesk(
            book: ShareBook(
                client: resources.postgres, publicBaseURL: try baseURL(environment), clock: resources.clock,
                logger: resources.logger),
            images: images)
        register(shares: shares, on: &router)
        let greetingBook = GreetingBook(client: resources.postgres, logger: resources.logger)
        register(
            greetings: GreetingDesk(
                gazetteer: .load(path: try environment.required(gazetteerFile), logger: resources.logger),
                images: images, book: greetingBook, clock: resources.clock),
            on: &router)
        // A deleted account's saved greetings go with it.
        let forgetter = try resources.consumer(name: "printing.auth", topics: [Auth.AccountDeleted.topic]) {
            event, connection in
            let deleted = try Wire.makeDecoder().decode(Auth.AccountDeleted.self, from: event.payload)
            guard let user = UUID(uuidString: deleted.userId) else { return }
            try await greetingBook.forget(user, on: connection)
        }
        let consumer = try resources.consumer(name: "printing.orders", topics: [Orders.Topic.paid]) {
            event, connection in
            if let accepted = try await book.accept(event, on: connection) {
                publisher.announce(accepted)
                nudge.yield()
            }
            if try await ecards.renderer.book.accept(event, on: connection) { ecards.nudge.yield() }
        }
        return [publisher.service, consumer, forgetter, renderer, ecards.renderer, sweeper]
    }

    /// Registers scaled images and resumable uploads (any signed-in user; access is per image and upload).
    public static func register(variants: ImageVariants, uploads: UploadBook, on router: inout OperationRouter) {
        router.register(Printing.ImageContent.self) { request, context in
            try await variants.content(request, actor: try context.requireActor())
        }
        router.register(Printing.CreateUpload.self) { request, context in
            try await uploads.create(request, actor: try context.requireActor())
        }
        router.register(Printing.UploadStatus.self) { request, context in
            try await uploads.status(request.id, actor: try context.requireActor())
        }
        router.register(Printing.AppendUpload.self) { request, context in
            try await uploads.append(request, actor: try context.requireActor())
        }
    }

    /// Registers the service's operations.
    public static func register(postage: PostageDesk, images: ImageLibrary, on router: inout OperationRouter) {
        router.register(Printing.UploadImage.self) { request, context in
            try await images.upload(request, actor: try context.requireActor())
        }
        router.register(Printing.GetImage.self) { request, context in
            let actor = try context.requireActor()
            if request.printable == true { return try await images.printable(request.id, actor: actor) }
            return try await images.info(request.id, actor: actor)
        }
        router.register(Printing.GetPostage.self) { _, _ in try await postage.active() }
        router.register(Printing.PostageRates.self) { request, _ in try await postage.rates(request) }
        router.register(Printing.LoadPostage.self) { request, context in
            let actor = try context.requireRole(.printer)
            return try await postage.load(xml: request.xml, source: "upload \(actor.userId)")
        }
    }

    /// `PUBLIC_BASE_URL`, checked: an absolute http(s) link with a host and no query.
    static func baseURL(_ environment: ProcessEnvironment) throws -> String {
        let raw = try environment.required(publicBaseURL)
        guard let url = URL(string: raw), ["http", "https"].contains(url.scheme ?? ""), url.host != nil,
            url.query == nil, url.fragment == nil
        else {
            throw ServiceError(.invalidArgument, "PUBLIC_BASE_URL=\(raw) is not an absolute http(s) link")
        }
        return raw
    }

    /// Registers the share pages' operations: making and revoking (the owner) and serving (anyone
    /// with the token).
    public static func register(shares: ShareDesk, on router: inout OperationRouter) {
        router.register(Printing.ShareCard.self) { request, context in
            try await shares.share(request, actor: try context.requireActor())
        }
        router.register(Printing.UnshareCard.self) { request, context in
            try await shares.unshare(request, actor: try context.requireActor())
            return Empty()
        }
        router.register(Printing.SharePage.self) { request, _ in
            .init(html: try await shares.book.page(token: request.token).html)
        }
        router.register(Printing.ShareImage.self) { request, _ in try await shares.book.image(token: request.token) }
    }

    /// Registers the saved postcards (drafts) and the caller's own uploads (list, delete); `bus`
    /// asks orders whether an order uses an image before it is deleted (nil: only printing's own
    /// tables are asked, as in tests without an orders worker).
    public static func register(
        drafts: DraftBook, images: ImageLibrary, bus: BusClient? = nil, on router: inout OperationRouter
    ) {
        router.register(Printing.ListDrafts.self) { request, context in
            try await drafts.list(request, actor: try context.requireActor())
        }
        router.register(Printing.CreateDraft.self) { request, context in
            try await drafts.create(request, actor: try context.requireActor())
        }
        router.register(Printing.GetDraft.self) { request, context in
            try await drafts.get(request.id, actor: try context.requireActor())
        }
        router.register(Printing.UpdateDraft.self) { request, context in
            try await drafts.update(request, actor: try context.requireActor())
        }
        router.register(Printing.DeleteDraft.self) { request, context in
            try await drafts.delete(request, actor: try context.requireActor())
            return Empty()
        }
        router.register(Printing.ListImages.self) { request, context in
            try await images.list(request, actor: try context.requireActor())
        }
        router.register(Printing.DeleteImage.self) { request, context in
            let actor = try context.requireActor()
            let metadata = RequestMetadata(requestId: context.metadata.requestId, actor: actor)
            try await images.delete(request.id, actor: actor) { imageId in
                guard let bus else { return false }
                return try await bus.call(Orders.ImageInOrders.self, .init(id: imageId), metadata: metadata).inUse
            }
            return Empty()
        }
    }

    /// Registers the printer's print-job operations (role `printer` or `admin`).
    public static func register(printJobs: PrintJobDesk, on router: inout OperationRouter) {
        router.register(Printing.ListPrintJobs.self) { request, context in
            _ = try context.requireRole(.printer)
            return try await printJobs.list(request)
        }
        router.register(Printing.CountPrintJobs.self) { request, context in
            _ = try context.requireRole(.printer)
            return try await printJobs.counts(request)
        }
        router.register(Printing.PrintJobPDF.self) { request, context in
            _ = try context.requireRole(.printer)
            return try await printJobs.pdf(request.id)
        }
        router.register(Printing.BatchPDF.self) { request, context in
            _ = try context.requireRole(.printer)
            return try await printJobs.batch(request.ids)
        }
        router.register(Printing.MarkPrintJob.self) { request, context in
            _ = try context.requireRole(.printer)
            return try await printJobs.mark(request)
        }
    }

    /// Registers the greeting operations (PostcardBuddy 4.2.2.8-11).
    public static func register(greetings: GreetingDesk, on router: inout OperationRouter) {
        router.register(Printing.ListGreetingTemplates.self) { request, _ in try greetings.templates(request) }
        router.register(Printing.SuggestGreetings.self) { request, context in
            try await greetings.suggestions(request, actor: try context.requireActor())
        }
        router.register(Printing.ListSavedGreetings.self) { request, context in
            try await greetings.list(request, actor: try context.requireActor())
        }
        router.register(Printing.SaveGreeting.self) { request, context in
            try await greetings.save(request, actor: try context.requireActor())
        }
        router.register(Printing.DeleteSavedGreeting.self) { request, context in
            try await greetings.delete(request, actor: try context.requireActor())
        }
    }
}
