import CommonContract
import Contract
import Foundation

/// Operations of the `printing` service (PostcardBuddy): the printer's postage file today;
/// images, rendering and print jobs later. Amounts are integer minor units of the tariff's
/// currency.
public enum Printing {}

// MARK: - events

extension Printing {
    /// Topics of printing's job and e-card events. Payload ``JobEvent``.
    public enum Topic {
        /// Printing accepted the job: orders moves the order into production and captures the payment.
        public static let jobAccepted = "printing.job_accepted"
        /// A job's PDF is rendered and waits for the printer.
        public static let jobReady = "printing.job_ready"
        /// The card is printed.
        public static let jobPrinted = "printing.job_printed"
        /// The card was handed to the postal service; notify tells the owner once per order.
        public static let jobMailed = "printing.job_mailed"
        /// The job failed for good: the order fails and the money goes back.
        public static let jobFailed = "printing.job_failed"
        /// An e-card could not be rendered (payload `jobId` = the e-card's id): the order fails
        /// and the money goes back, as for a failed job.
        public static let ecardFailed = "printing.ecard_failed"
        /// An e-card was rendered (payload `imageUrl`): orders keeps the link for the phone
        /// that sends the card itself.
        public static let ecardReady = "printing.ecard_ready"
    }

    /// The payload of printing's job and e-card events (``Topic``).
    public struct JobEvent: Codable, Sendable, Hashable {
        public var orderId: String
        public var jobId: String?
        public var reason: String?
        /// The order's owner (so that notify can tell them, e.g. of a failed job).
        public var userId: String?
        /// For `printing.ecard_ready`: the rendered e-card's public link.
        public var imageUrl: String?
        public init(
            orderId: String, jobId: String? = nil, reason: String? = nil, userId: String? = nil, imageUrl: String? = nil
        ) {
            self.orderId = orderId
            self.jobId = jobId
            self.reason = reason
            self.userId = userId
            self.imageUrl = imageUrl
        }
    }

    /// Event `printing.ecard_rendered`: an e-card of an order that the server mails is rendered;
    /// notify sends one `ecard` mail per recipient.
    public struct ECardRendered: Codable, Sendable, Equatable {
        public static let topic = "printing.ecard_rendered"
        /// The sender's account.
        public var userId: String
        public var orderId: String
        public var senderName: String
        /// Where the rendered image can be fetched (https).
        public var imageUrl: String
        public var message: String
        public var recipients: [String]
        /// The image's token at printing (`ecard_image`), so notify can put the image itself in
        /// the mail.
        public var imageToken: String?
        public init(
            userId: String, orderId: String, senderName: String, imageUrl: String, message: String,
            recipients: [String], imageToken: String? = nil
        ) {
            self.userId = userId
            self.orderId = orderId
            self.senderName = senderName
            self.imageUrl = imageUrl
            self.message = message
            self.recipients = recipients
            self.imageToken = imageToken
        }
    }
}

// MARK: - postage

extension Printing {
    /// A destination zone of a postage tariff: a list of countries, or the catch-all zone.
    public struct PostageZone: Codable, Sendable, Hashable {
        public var id: String
        /// ISO 3166-1 alpha-2 codes; empty for the catch-all zone.
        public var countries: [String]
        /// The zone of every country no other zone names.
        public var isDefault: Bool
        public init(id: String, countries: [String], isDefault: Bool) {
            self.id = id
            self.countries = countries
            self.isDefault = isDefault
        }
    }

    /// One price of a tariff: a card size to a zone, or to one country (which wins over its zone).
    public struct PostagePrice: Codable, Sendable, Hashable {
        /// `A6`, `A5` or `A4`.
        public var size: String
        public var zone: String?
        public var country: String?
        /// Minor units of the tariff's currency.
        public var amount: Int64
        public init(size: String, zone: String? = nil, country: String? = nil, amount: Int64) {
            self.size = size
            self.zone = zone
            self.country = country
            self.amount = amount
        }
    }

    /// A stored version of the printer's postage file, without its stamp image bytes.
    public struct PostageTariff: Codable, Sendable, Hashable {
        /// The version number the printing service gave it (1, 2, ...).
        public var id: Int64
        /// The printer's own label for the file (its `version` attribute).
        public var label: String
        public var carrier: String
        /// ISO 4217.
        public var currency: String
        /// The country the cards are posted from.
        public var origin: String
        /// First day it applies, `YYYY-MM-DD` (UTC).
        public var validFrom: String
        /// Last day it applies, if it ends.
        public var validTo: String?
        public var zones: [PostageZone]
        public var prices: [PostagePrice]
        /// `image/png` or `image/jpeg`.
        public var stampMediaType: String
        public var stampWidth: Int
        public var stampHeight: Int
        /// SHA-256 of the uploaded file, hex.
        public var sha256: String
        public var loadedAt: Date
        /// Whether this is the version in force now.
        public var active: Bool
        public init(
            id: Int64, label: String, carrier: String, currency: String, origin: String, validFrom: String,
            validTo: String?, zones: [PostageZone], prices: [PostagePrice], stampMediaType: String, stampWidth: Int,
            stampHeight: Int, sha256: String, loadedAt: Date, active: Bool
        ) {
            self.id = id
            self.label = label
            self.carrier = carrier
            self.currency = currency
            self.origin = origin
            self.validFrom = validFrom
            self.validTo = validTo
            self.zones = zones
            self.prices = prices
            self.stampMediaType = stampMediaType
            self.stampWidth = stampWidth
            self.stampHeight = stampHeight
            self.sha256 = sha256
            self.loadedAt = loadedAt
            self.active = active
        }
    }

    /// `get_postage`: the tariff in force (anyone may ask).
    public enum GetPostage: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "get_postage"
        public typealias Request = Empty
        public typealias Reply = PostageTariff
    }

    /// `load_postage` (role `printer` or `admin`): stores a new version of the postage file.
    /// A file that does not validate changes nothing; the error names line, element and problem.
    public enum LoadPostage: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "load_postage"

        public struct Request: Codable, Sendable, Hashable {
            public var xml: String
            public init(xml: String) { self.xml = xml }
        }

        public typealias Reply = PostageTariff
    }

    /// The postage of one card of a size to one country.
    public struct CountryPostage: Codable, Sendable, Hashable {
        public var country: String
        /// The zone (or `country:XX` for a country's own price) the price came from.
        public var zone: String
        /// Minor units of the tariff's currency.
        public var amount: Int64
        public init(country: String, zone: String, amount: Int64) {
            self.country = country
            self.zone = zone
            self.amount = amount
        }
    }

    /// `postage_rates`: what the tariff in force charges for a card of `size` to each country;
    /// the orders service asks it to price postcards.
    public enum PostageRates: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "postage_rates"

        public struct Request: Codable, Sendable, Hashable {
            public var size: String
            public var countries: [String]
            public init(size: String, countries: [String]) {
                self.size = size
                self.countries = countries
            }
        }

        public struct Reply: Codable, Sendable, Hashable {
            /// The version answering.
            public var tariffId: Int64
            public var carrier: String
            public var currency: String
            public var prices: [CountryPostage]
            public init(tariffId: Int64, carrier: String, currency: String, prices: [CountryPostage]) {
                self.tariffId = tariffId
                self.carrier = carrier
                self.currency = currency
                self.prices = prices
            }
        }
    }
}

// MARK: - images

extension Printing {
    /// A position (WGS 84 degrees), as read from a photo's EXIF GPS tags.
    public struct GPSPosition: Codable, Sendable, Hashable {
        public var lat: Double
        public var lon: Double
        public init(lat: Double, lon: Double) {
            self.lat = lat
            self.lon = lon
        }
    }

    /// An uploaded image: its size as displayed (EXIF orientation applied) and where it was taken.
    public struct ImageInfo: Codable, Sendable, Hashable {
        public var id: String
        public var width: Int
        public var height: Int
        public var gps: GPSPosition?
        /// `image/jpeg`, `image/png` or `image/bmp`.
        public var mediaType: String
        /// Size of the original in bytes.
        public var bytes: Int
        /// SHA-256 of the original (its name in the store), hex.
        public var sha256: String
        /// The EXIF orientation of the original (1 when it has none).
        public var orientation: Int
        public var createdAt: Date
        public init(
            id: String, width: Int, height: Int, gps: GPSPosition?, mediaType: String, bytes: Int, sha256: String,
            orientation: Int, createdAt: Date
        ) {
            self.id = id
            self.width = width
            self.height = height
            self.gps = gps
            self.mediaType = mediaType
            self.bytes = bytes
            self.sha256 = sha256
            self.orientation = orientation
            self.createdAt = createdAt
        }
    }

    /// `upload_image` (signed in): stores an image after the upload guards.
    public enum UploadImage: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "upload_image"

        public struct Request: Codable, Sendable, Hashable {
            /// The `Content-Type` the client sent.
            public var contentType: String
            /// The body, base64.
            public var data: String
            public init(contentType: String, data: String) {
                self.contentType = contentType
                self.data = data
            }
        }

        public typealias Reply = ImageInfo
    }

    /// `get_image`: one of the caller's images (printers and admins see any). With `printable`,
    /// the image is also run through the renderer's decoder: one that cannot be drawn is
    /// `failed_precondition` (422) with `details.reason` `unprintable_image` and `details.imageId`.
    public enum GetImage: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "get_image"

        public struct Request: Codable, Sendable, Hashable {
            public var id: String
            /// Whether to prove the image can be rendered (orders asks so before charging for a card).
            public var printable: Bool?
            public init(id: String, printable: Bool? = nil) {
                self.id = id
                self.printable = printable
            }
        }

        public typealias Reply = ImageInfo
    }
}

// MARK: - previews

extension Printing {
    /// `preview_postcard` (signed in): one side of a card as the app's preview screen shows it.
    public enum PreviewPostcard: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "preview_postcard"
        /// The narrowest and widest preview a phone may ask for, in pixels.
        public static let minWidth = 128
        public static let maxWidth = 2_048

        public struct Request: Codable, Sendable, Hashable {
            /// One of the caller's uploads, for the front.
            public var imageId: String?
            public var greeting: String?
            public var recipient: PostalRecipient?
            /// `A6`, `A5` or `A4`.
            public var size: String
            /// `front` or `back`.
            public var side: String
            /// `jpeg` or `png`; when absent, chosen by ``accept`` (JPEG unless PNG is preferred).
            public var format: String?
            /// The front image's edit list (see ``PostcardEdit``), as the order would carry it.
            public var edits: [JSONValue]?
            /// The preview's width in pixels (``minWidth`` to ``maxWidth``); absent: 100 dpi of the card.
            public var width: Int?
            /// The HTTP request's `Accept` header, which chooses the format when ``format`` is absent.
            public var accept: String?
            public init(
                imageId: String? = nil, greeting: String? = nil, recipient: PostalRecipient? = nil,
                size: String, side: String, format: String? = nil, edits: [JSONValue]? = nil, width: Int? = nil,
                accept: String? = nil
            ) {
                self.imageId = imageId
                self.greeting = greeting
                self.recipient = recipient
                self.size = size
                self.side = side
                self.format = format
                self.edits = edits
                self.width = width
                self.accept = accept
            }
        }

        public struct Reply: Codable, Sendable, Hashable {
            /// `image/png` or `image/jpeg`.
            public var mediaType: String
            /// The image, base64.
            public var data: String
            /// Set when the front image prints under 300 dpi.
            public var warning: String?
            public init(mediaType: String, data: String, warning: String?) {
                self.mediaType = mediaType
                self.data = data
                self.warning = warning
            }
        }
    }
}

// MARK: - print jobs

extension Printing {
    /// A print job: the cards of one paid postcard order, as the printer sees it.
    public struct PrintJob: Codable, Sendable, Hashable {
        public var id: String
        public var orderId: String
        /// `queued` (being rendered), `ready`, `printed`, `mailed` or `failed`.
        public var status: String
        /// How many cards (one per recipient; two PDF pages each).
        public var cards: Int
        public var createdAt: Date
        /// Why the job failed, when `failed`.
        public var reason: String?
        /// The card size (`A6`, `A5` or `A4`): a batch PDF takes jobs of one size.
        public var size: String?
        public init(
            id: String, orderId: String, status: String, cards: Int, createdAt: Date, reason: String? = nil,
            size: String? = nil
        ) {
            self.id = id
            self.orderId = orderId
            self.status = status
            self.cards = cards
            self.createdAt = createdAt
            self.reason = reason
            self.size = size
        }
    }

    /// A PDF in a JSON reply.
    public struct PDFDocument: Codable, Sendable, Hashable {
        /// The PDF bytes in base64.
        public var data: String
        public init(data: String) { self.data = data }
    }

    /// `list_print_jobs` (`printer` or `admin`): jobs, oldest first, optionally of one status.
    public enum ListPrintJobs: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "list_print_jobs"

        public static let pageSize = PageSize(default: 100, max: 500)

        public struct Request: Codable, Sendable, Hashable {
            public var status: String?
            /// The `nextCursor` of the previous page.
            public var cursor: String?
            /// 1 to 500 (default 100).
            public var limit: Int?
            public init(status: String? = nil, cursor: String? = nil, limit: Int? = nil) {
                self.status = status
                self.cursor = cursor
                self.limit = limit
            }
        }

        public typealias Reply = Page<PrintJob>
    }

    /// `print_job_pdf` (`printer` or `admin`): the rendered PDF of one job (ready or later).
    public enum PrintJobPDF: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "print_job_pdf"

        public struct Request: Codable, Sendable, Hashable {
            public var id: String
            public init(id: String) { self.id = id }
        }

        public typealias Reply = PDFDocument
    }

    /// `print_jobs_batch_pdf` (`printer` or `admin`): one PDF of several rendered jobs, in order.
    public enum BatchPDF: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "print_jobs_batch_pdf"

        public struct Request: Codable, Sendable, Hashable {
            public var ids: [String]
            public init(ids: [String]) { self.ids = ids }
        }

        public typealias Reply = PDFDocument
    }

    /// `mark_print_job` (`printer` or `admin`): `printed` (from ready), `mailed` (from printed) or
    /// `failed` with a reason (from ready or printed); anything else is `failed_precondition`.
    public enum MarkPrintJob: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "mark_print_job"

        public struct Request: Codable, Sendable, Hashable {
            public var id: String
            public var status: String
            public var reason: String?
            public init(id: String, status: String, reason: String? = nil) {
                self.id = id
                self.status = status
                self.reason = reason
            }
        }

        public typealias Reply = PrintJob
    }
}

extension Printing {
    /// How many jobs of one status were created on one day (UTC), and their cards.
    public struct PrintJobDayCount: Codable, Sendable, Hashable {
        /// `YYYY-MM-DD`, UTC.
        public var day: String
        /// `queued`, `ready`, `printed`, `mailed` or `failed`: the jobs' status now.
        public var status: String
        public var jobs: Int
        public var cards: Int
        public init(day: String, status: String, jobs: Int, cards: Int) {
            self.day = day
            self.status = status
            self.jobs = jobs
            self.cards = cards
        }
    }

    /// `count_print_jobs` (`printer` or `admin`): the jobs created on each of the last `days`
    /// days (UTC, today included) by their status now, counted by the server.
    public enum CountPrintJobs: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "count_print_jobs"
        /// Days when the request names none.
        public static let defaultDays = 14
        /// The most days one request may ask for.
        public static let maxDays = 366

        public struct Request: Codable, Sendable, Hashable {
            /// 1 to 366 (default 14).
            public var days: Int?
            public init(days: Int? = nil) { self.days = days }
        }

        public struct Reply: Codable, Sendable, Hashable {
            /// The first day counted, `YYYY-MM-DD`.
            public var from: String
            /// The last day counted (today, UTC).
            public var to: String
            /// One entry per day and status that has jobs; newest day first, statuses in their
            /// order (queued, ready, printed, mailed, failed). Days without jobs are absent.
            public var counts: [PrintJobDayCount]
            public init(from: String, to: String, counts: [PrintJobDayCount]) {
                self.from = from
                self.to = to
                self.counts = counts
            }
        }
    }
}
