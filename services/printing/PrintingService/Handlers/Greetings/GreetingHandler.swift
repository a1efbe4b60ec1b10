import Contract
import Foundation
import PrintingContract
import ServiceKit
import Store

/// PostcardBuddy's greetings: the templates, travel greetings for the place a photo shows, and
/// the greetings a user saved. A position asked about is used for the answer and forgotten: no
/// table, log line or event ever holds it.
public struct GreetingHandler: Sendable {
    let gazetteer: Gazetteer
    let images: ImageLibrary
    let store: GreetingStore
    let clock: any WallClock

    public init(gazetteer: Gazetteer, images: ImageLibrary, store: GreetingStore, clock: any WallClock) {
        self.gazetteer = gazetteer
        self.images = images
        self.store = store
        self.clock = clock
    }

    /// `list_greeting_templates`.
    public func templates(_ request: Printing.ListGreetingTemplates.Request) throws(ServiceError)
        -> Printing.ListGreetingTemplates.Reply
    {
        let language = try GreetingLanguage.choose(lang: request.lang, acceptLanguage: nil)
        let occasion = try request.occasion.map { text throws(ServiceError) in
            try Printing.GreetingOccasion.parse(text)
        }
        return .init(language: language, items: GreetingCatalog.templates(occasion, in: language))
    }

    /// `suggest_greetings`: from `lat`/`lon`, or from the EXIF position of `imageId` (which the
    /// actor must be allowed to see).
    public func suggestions(_ request: Printing.SuggestGreetings.Request, actor: Actor) async throws
        -> Printing.SuggestGreetings.Reply
    {
        let language = try GreetingLanguage.choose(lang: request.lang, acceptLanguage: nil)
        let index = try gazetteer.index()
        let position: (lat: Double, lon: Double)
        switch (request.lat, request.lon, request.imageId) {
        case (let lat?, let lon?, nil):
            guard lat.isFinite, (-90...90).contains(lat) else {
                throw ServiceError.invalidArgument("lat is -90 to 90", field: "lat")
            }
            guard lon.isFinite, (-180...180).contains(lon) else {
                throw ServiceError.invalidArgument("lon is -180 to 180", field: "lon")
            }
            position = (lat, lon)
        case (nil, nil, let imageId?):
            guard let gps = try await images.info(imageId, actor: actor).gps else {
                throw ServiceError(
                    .failedPrecondition, "the image has no GPS position in its EXIF data; send lat and lon",
                    details: ["field": .string("imageId")])
            }
            position = (gps.lat, gps.lon)
        case (_, _, .some):
            throw ServiceError.invalidArgument("send either lat and lon or imageId, not both", field: "imageId")
        case (nil, _, nil):
            throw ServiceError.invalidArgument("send lat and lon, or imageId", field: "lat")
        case (_, nil, nil):
            throw ServiceError.invalidArgument("send lat and lon, or imageId", field: "lon")
        }
        let found = index.nearest(
            latitude: position.lat, longitude: position.lon,
            maxDistance: Double(Printing.SuggestGreetings.maxDistanceMeters))
        let place = found.map { found in
            Printing.GreetingPlace(
                geonameId: found.place.geonameId, name: found.place.name, countryCode: found.place.countryCode,
                distanceMeters: Int((found.meters / 100).rounded()) * 100)
        }
        return .init(
            language: language, place: place, items: GreetingCatalog.travel(at: place?.name, in: language))
    }

    /// `save_greeting`.
    public func save(_ request: Printing.SaveGreeting.Request, actor: Actor) async throws -> Printing.SavedGreeting {
        let owner = try Self.owner(actor)
        let text = request.text
        guard text.unicodeScalars.contains(where: { !Self.blank.contains($0) }) else {
            throw ServiceError.invalidArgument("text is empty (only spaces)", field: "text")
        }
        guard text.unicodeScalars.count <= Printing.SaveGreeting.maxTextLength else {
            throw ServiceError.invalidArgument(
                "text is at most \(Printing.SaveGreeting.maxTextLength) characters", field: "text")
        }
        guard !text.unicodeScalars.contains("\u{0}") else {
            throw ServiceError.invalidArgument("text may not hold U+0000", field: "text")
        }
        let occasion = try request.occasion.map { text throws(ServiceError) in
            try Printing.GreetingOccasion.parse(text)
        }
        guard let saved = try await store.save(owner: owner, text: text, occasion: occasion, at: clock.now()) else {
            throw ServiceError(
                .failedPrecondition,
                "you have \(Printing.SaveGreeting.maxPerUser) saved greetings, the most kept; delete one first",
                details: ["limit": .number(Double(Printing.SaveGreeting.maxPerUser))])
        }
        return saved
    }

    /// `list_saved_greetings`.
    public func list(_ request: PageRequest, actor: Actor) async throws -> Page<Printing.SavedGreeting> {
        try await store.page(of: try Self.owner(actor), request)
    }

    /// `delete_saved_greeting`: another's greeting, or none by that id, is 404.
    public func delete(_ request: Printing.DeleteSavedGreeting.Request, actor: Actor) async throws -> Empty {
        let owner = try Self.owner(actor)
        guard let id = UUID(uuidString: request.id), try await store.delete(owner: owner, id: id) else {
            throw ServiceError.notFound("no such saved greeting")
        }
        return Empty()
    }

    /// What a text must hold more than (the document's pattern `[^ \t\n\r]`).
    static let blank: Set<Unicode.Scalar> = [" ", "\t", "\n", "\r"]

    static func owner(_ actor: Actor) throws(ServiceError) -> UUID {
        guard let owner = UUID(uuidString: actor.userId) else { throw ServiceError(.unauthenticated, "no user id") }
        return owner
    }
}
