/// The operations of the document the gateway does more for than check the caller, turn
/// parameters into a payload and pass bytes through (``DocumentRoute``), each listed once under
/// the reason. Every other operation of the document is served on the one path; ``Gateway``
/// refuses to start when an operation needs more than that path gives and is not listed here.
enum GatewayExceptions {
    /// Why an operation needs the gateway's own work.
    enum Kind: String, CaseIterable, Sendable {
        /// The gateway's own endpoints: probes, the document, the API reference.
        case gatewaysOwn = "the gateway's own endpoint"
        /// A binary, text or tus body, asked for or answered (images, PDFs, XML and CSV imports,
        /// a webhook's signed bytes, pages and feeds).
        case binaryBody = "a binary or tus body"
        /// The server-sent event stream.
        case eventStream = "the event stream"
        /// A conditional request (`If-Match` on a revision, a tag taken from a member of the reply).
        case conditional = "a conditional request"
        /// A reply composed from calls to several services.
        case composed = "a reply composed from several calls"
        /// A language chosen from `Accept-Language` and answered in `Content-Language`.
        case contentLanguage = "content negotiation"
    }

    /// The reason `operationId` is an exception, or nil when it is served on the one path.
    static func kind(of operationId: String) -> Kind? {
        Kind.allCases.first { operations(of: $0).contains(operationId) }
    }

    /// The operations listed under `kind`.
    static func operations(of kind: Kind) -> Set<String> {
        switch kind {
        case .gatewaysOwn: gatewaysOwn
        case .binaryBody: binaryBody
        case .eventStream: eventStream
        case .conditional: conditional
        case .composed: composed
        case .contentLanguage: contentLanguage
        }
    }

    static let gatewaysOwn: Set<String> = [
        "getHealthz", "getReadyz", "getOpenAPIDocument", "getAPIReference", "getAPIReferenceScript", "getAPIReferenceBundle",
        "getAPIReferenceStyle",
    ]
    static let binaryBody: Set<String> = [
        "uploadImage", "createUpload", "getUploadOffset", "appendUpload", "describeUploads", "addGalleryImage",
        "importCampusMap", "importTimetable", "putCurrencyRates", "putPostage", "receiveStripeWebhook",
        "getImageContent", "getShareImage", "getSharePage", "getECardImage", "getPrintJobPDF", "batchPrintJobsPDF",
        "previewPostcard", "getTimetableFeed",
    ]
    static let eventStream: Set<String> = [
        "streamNotifications",
    ]
    static let conditional: Set<String> = [
        "listMyPostcards", "createMyPostcard", "getMyPostcard", "updateMyPostcard", "deleteMyPostcard",
    ]
    static let composed: Set<String> = [
        "listJobQueues", "listDeadLetters",
    ]
    static let contentLanguage: Set<String> = [
        "listGreetingTemplates", "suggestGreetings",
    ]
}
