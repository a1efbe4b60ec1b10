import Contract
import Foundation
import PrintingContract
import ServiceKit
import Store

/// The `printing` service: the printer's postage file, image uploads, print-ready postcards and
/// previews, and the print jobs of paid postcard orders (docs/printing.md).
public enum PrintingService {
    /// What the executable is and reads, for `--help`.
    public static let spec = ProcessSpec(
        name: "printing",
        summary: "MDP worker for postage, images and print-ready postcards",
        settings: WorkerHost.settings + [
            postageFile, dataDirectory, imageMaxBytes, imageMaxMegapixels, renderAttempts, renderBackoff, renderPoll,
            renderLease,
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
        let environment = resources.environment
        let postage = PostageHandler(
            store: PostageStore(client: resources.database.client, logger: resources.logger),
            schema: Array(try Data(contentsOf: try postageSchemaURL())), clock: resources.clock,
            logger: resources.logger)
        let path = environment.string(postageFile)
        try await postage.bootstrap(from: try path.map { URL(fileURLWithPath: $0) } ?? samplePostageURL())
        let limits = ImageLimits(
            maxBytes: try environment.int(imageMaxBytes, in: 1_000...500_000_000),
            maxPixels: try environment.int(imageMaxMegapixels, in: 1...1_000) * 1_000_000)
        let dataRoot = URL(fileURLWithPath: try environment.required(dataDirectory))
        let originals = try OriginalsDirectory(root: dataRoot.appendingPathComponent("originals"))
        let threads =
            try environment.string(renderThreads).map { _ in try environment.int(renderThreads, in: 1...256) }
            ?? ProcessInfo.processInfo.activeProcessorCount
        let images = ImageLibrary(
            client: resources.database.client, originals: originals, limits: limits, clock: resources.clock,
            logger: resources.logger,
            pool: DedicatedThreadPool(
                name: "render", threads: threads, queueLimit: try environment.int(renderQueueLimit, in: 0...100_000)))
        register(
            images: ImageHandler(images: images, orders: OrdersClient(bus: resources.bus)), postage: postage,
            on: &router)
        let uploadStore = UploadStore(client: resources.database.client, logger: resources.logger)
        let uploads = UploadHandler(
            images: images, store: uploadStore, transactions: resources.transactions,
            policy: UploadPolicy(
                maxLength: Int64(limits.maxBytes),
                maxOpenPerOwner: try environment.int(uploadOpenLimit, in: 1...10_000),
                lifetime: Duration.seconds(try environment.int(uploadLifetime, in: 60...31_536_000))),
            clock: resources.clock, logger: resources.logger)
        register(
            variants: try ImageVariantHandler(images: images, root: dataRoot.appendingPathComponent("variants")),
            uploads: uploads, on: &router)
        let sweeper = UploadSweeper(
            store: uploadStore, clock: resources.clock,
            interval: Duration.seconds(try environment.int(uploadSweep, in: 1...86_400)), logger: resources.logger)
        register(
            drafts: DraftHandler(
                images: images, store: DraftStore(client: resources.database.client, logger: resources.logger),
                clock: resources.clock),
            previews: PreviewHandler(images: images, postage: postage), on: &router)
        let publisher = try resources.publisher()
        let attempts = try environment.int(renderAttempts, in: 1...100)
        let poll = Duration.milliseconds(try environment.int(renderPoll, in: 5...60_000))
        let lease = Double(try environment.int(renderLease, in: 1_000...3_600_000)) / 1_000
        let queue = JobQueue(
            client: resources.database.client, schema: "printing", table: "render_jobs", clock: resources.clock,
            backoff: Backoff(base: Double(try environment.int(renderBackoff, in: 1...3_600_000)) / 1000),
            logger: resources.logger)
        var jobs = PrintJobStore(
            client: resources.database.client, queue: queue, events: resources.events, logger: resources.logger,
            announce: publisher.announce)
        jobs.renderAttempts = attempts
        let (printWake, printNudge) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let cards = PrintJobCards(images: images, postage: postage)
        let files = try PrintJobFiles(
            root: dataRoot.appendingPathComponent("jobs"),
            hotFolder: environment.string(hotFolder).map { URL(fileURLWithPath: $0) })
        var printRenderer = PrintJobRenderer(
            store: jobs, cards: cards, files: files, wake: printWake, logger: resources.logger)
        printRenderer.pollInterval = poll
        printRenderer.lease = lease
        register(printJobs: PrintJobHandler(store: jobs, cards: cards, files: files), on: &router)
        var ecards = ECardStore(
            client: resources.database.client, queue: queue, events: resources.events,
            publicBaseURL: try environment.required(ecardPublicURL), logger: resources.logger,
            announce: publisher.announce)
        ecards.renderAttempts = attempts
        let (ecardWake, ecardNudge) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        var ecardRenderer = ECardRenderer(
            store: ecards, images: images, accounts: .overBus(resources.bus), wake: ecardWake,
            logger: resources.logger)
        ecardRenderer.dpi = Double(try environment.int(ecardDPI, in: 50...300))
        ecardRenderer.pollInterval = poll
        ecardRenderer.lease = lease
        register(
            gallery: GalleryHandler(
                images: images, store: GalleryStore(client: resources.database.client, logger: resources.logger),
                clock: resources.clock, logger: resources.logger),
            ecards: ECardHandler(store: ecards), on: &router)
        register(
            shares: ShareHandler(
                store: ShareStore(
                    client: resources.database.client, publicBaseURL: try baseURL(environment), clock: resources.clock,
                    logger: resources.logger),
                images: images),
            on: &router)
        let greetings = GreetingStore(client: resources.database.client, logger: resources.logger)
        register(
            greetings: GreetingHandler(
                gazetteer: .load(path: try environment.required(gazetteerFile), logger: resources.logger),
                images: images, store: greetings, clock: resources.clock),
            on: &router)
        let forgetter = AccountDeletionConsumer(greetings: greetings)
        let paid = PaidOrderConsumer(
            printJobs: jobs, ecards: ecards, announce: publisher.announce,
            printJobAccepted: { printNudge.yield() }, ecardAccepted: { ecardNudge.yield() })
        return [
            publisher.service,
            try resources.consumer(
                name: "printing.orders", topics: PaidOrderConsumer.topics, inTransaction: paid.handle),
            try resources.consumer(
                name: "printing.auth", topics: AccountDeletionConsumer.topics, inTransaction: forgetter.handle),
            printRenderer, ecardRenderer, sweeper,
        ]
    }

    /// Registers the caller's images and the postage operations (the printer loads a new file).
    static func register(images: ImageHandler, postage: PostageHandler, on router: inout OperationRouter) {
        router.register(Printing.UploadImage.self) { try await images.upload($0, actor: try $1.requireActor()) }
        router.register(Printing.GetImage.self) { try await images.get($0, actor: try $1.requireActor()) }
        router.register(Printing.ListImages.self) { try await images.list($0, actor: try $1.requireActor()) }
        router.register(Printing.DeleteImage.self) {
            try await images.delete($0, actor: try $1.requireActor(), requestId: $1.metadata.requestId)
        }
        router.register(Printing.GetPostage.self) { _, _ in try await postage.active() }
        router.register(Printing.PostageRates.self) { request, _ in try await postage.rates(request) }
        router.register(Printing.LoadPostage.self) { try await postage.load($0, printer: try $1.requireRole(.printer)) }
    }

    /// Registers scaled images and resumable uploads (any signed-in user; access is per image and upload).
    static func register(variants: ImageVariantHandler, uploads: UploadHandler, on router: inout OperationRouter) {
        router.register(Printing.ImageContent.self) { try await variants.content($0, actor: try $1.requireActor()) }
        router.register(Printing.CreateUpload.self) { try await uploads.create($0, actor: try $1.requireActor()) }
        router.register(Printing.UploadStatus.self) { try await uploads.status($0.id, actor: try $1.requireActor()) }
        router.register(Printing.AppendUpload.self) { try await uploads.append($0, actor: try $1.requireActor()) }
    }

    /// Registers the saved postcards (drafts) and their previews.
    static func register(drafts: DraftHandler, previews: PreviewHandler, on router: inout OperationRouter) {
        router.register(Printing.ListDrafts.self) { try await drafts.list($0, actor: try $1.requireActor()) }
        router.register(Printing.CreateDraft.self) { try await drafts.create($0, actor: try $1.requireActor()) }
        router.register(Printing.GetDraft.self) { try await drafts.get($0.id, actor: try $1.requireActor()) }
        router.register(Printing.UpdateDraft.self) { try await drafts.update($0, actor: try $1.requireActor()) }
        router.register(Printing.DeleteDraft.self) { try await drafts.delete($0, actor: try $1.requireActor()) }
        router.register(Printing.PreviewPostcard.self) { try await previews.preview($0, actor: try $1.requireActor()) }
    }

    /// Registers the printer's print-job operations (role `printer` or `admin`).
    static func register(printJobs: PrintJobHandler, on router: inout OperationRouter) {
        router.register(Printing.ListPrintJobs.self) {
            try await printJobs.list($0, printer: try $1.requireRole(.printer))
        }
        router.register(Printing.CountPrintJobs.self) {
            try await printJobs.counts($0, printer: try $1.requireRole(.printer))
        }
        router.register(Printing.PrintJobPDF.self) {
            try await printJobs.pdf($0, printer: try $1.requireRole(.printer))
        }
        router.register(Printing.BatchPDF.self) { try await printJobs.batch($0, printer: try $1.requireRole(.printer)) }
        router.register(Printing.MarkPrintJob.self) {
            try await printJobs.mark($0, printer: try $1.requireRole(.printer))
        }
    }

    /// Registers the gallery's operations (an admin adds and removes) and the e-card image lookup.
    static func register(gallery: GalleryHandler, ecards: ECardHandler, on router: inout OperationRouter) {
        router.register(Printing.AddGalleryImage.self) { try await gallery.add($0, actor: try $1.requireRole(.admin)) }
        router.register(Printing.ListGallery.self) { try await gallery.list($0, actor: try $1.requireActor()) }
        router.register(Printing.RemoveGalleryImage.self) {
            try await gallery.remove($0, admin: try $1.requireRole(.admin))
        }
        router.register(Printing.ECardImage.self) { request, _ in try await ecards.image(request) }
    }

    /// Registers the share pages' operations: making and revoking (the owner) and serving (anyone
    /// with the token).
    static func register(shares: ShareHandler, on router: inout OperationRouter) {
        router.register(Printing.ShareCard.self) { try await shares.share($0, actor: try $1.requireActor()) }
        router.register(Printing.UnshareCard.self) { try await shares.unshare($0, actor: try $1.requireActor()) }
        router.register(Printing.SharePage.self) { request, _ in try await shares.page(request) }
        router.register(Printing.ShareImage.self) { request, _ in try await shares.image(request) }
    }

    /// Registers the greeting operations (PostcardBuddy 4.2.2.8-11).
    static func register(greetings: GreetingHandler, on router: inout OperationRouter) {
        router.register(Printing.ListGreetingTemplates.self) { request, _ in try greetings.templates(request) }
        router.register(Printing.SuggestGreetings.self) {
            try await greetings.suggestions($0, actor: try $1.requireActor())
        }
        router.register(Printing.ListSavedGreetings.self) { try await greetings.list($0, actor: try $1.requireActor()) }
        router.register(Printing.SaveGreeting.self) { try await greetings.save($0, actor: try $1.requireActor()) }
        router.register(Printing.DeleteSavedGreeting.self) {
            try await greetings.delete($0, actor: try $1.requireActor())
        }
    }
}
