import Contract
import Foundation
import ServiceKit

/// The settings of a printing process (`--help` lists them with ``PrintingService/spec``).
extension PrintingService {
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
}
