import Contract
import HTTPTypes
import PrintingContract

extension BusRoute {
    /// PostcardBuddy's greetings (printing): templates and place-based suggestions in the
    /// language the request chooses (`lang`, else `Accept-Language`; answered in
    /// `Content-Language`).
    static let greetings: [BusRoute] = [
        .building(
            "listGreetingTemplates", .get, "/v1/greetings/templates", Printing.ListGreetingTemplates.self,
            access: .anyone, replyHeaders: languageHeaders
        ) { input throws(ServiceError) in
            .init(occasion: try input.string("occasion"), lang: try greetingLanguage(input).rawValue)
        },
        .building(
            "suggestGreetings", .get, "/v1/greetings/suggestions", Printing.SuggestGreetings.self,
            access: .signedIn, replyHeaders: languageHeaders
        ) { input throws(ServiceError) in
            .init(
                lat: try input.number("lat"), lon: try input.number("lon"), imageId: try input.string("imageId"),
                lang: try greetingLanguage(input).rawValue)
        },
    ]

    /// The language a greeting request is answered in: HTTP content negotiation, so the gateway's.
    static func greetingLanguage(_ input: Input) throws(ServiceError) -> GreetingLanguage {
        try GreetingLanguage.choose(lang: try input.string("lang"), acceptLanguage: input.headers[.acceptLanguage])
    }

    /// `Content-Language` of the chosen language; `Vary: Accept-Language` for caches.
    @Sendable static func languageHeaders(_ input: Input) throws(ServiceError) -> HTTPFields {
        [.contentLanguage: try greetingLanguage(input).rawValue, .vary: "Accept-Language"]
    }
}
