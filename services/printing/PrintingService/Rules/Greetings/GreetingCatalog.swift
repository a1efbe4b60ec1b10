import Foundation
import PrintingContract

/// PostcardBuddy's greeting templates: 66 greetings, 11 for each occasion, each written in
/// English, Swedish and Afrikaans. A travel greeting with `{place}` names where the photo was
/// taken; suggestions fill it in.
public enum GreetingCatalog {
    /// One greeting in every language.
    public struct Entry: Sendable, Hashable {
        public let id: String
        public let occasion: Printing.GreetingOccasion
        public let texts: [GreetingLanguage: String]
        /// Whether the texts hold ``placeholder``.
        public var usesPlace: Bool { texts[.en]?.contains(GreetingCatalog.placeholder) ?? false }

        /// The template in `language`.
        public func template(in language: GreetingLanguage) -> Printing.GreetingTemplate {
            Printing.GreetingTemplate(id: id, occasion: occasion, text: texts[language] ?? "", usesPlace: usesPlace)
        }
    }

    /// What a travel greeting holds where the place's name goes.
    public static let placeholder = "{place}"

    /// The templates of `occasion` (nil: all), in catalogue order, in `language`.
    public static func templates(
        _ occasion: Printing.GreetingOccasion?, in language: GreetingLanguage
    ) -> [Printing.GreetingTemplate] {
        entries.filter { occasion == nil || $0.occasion == occasion }.map { $0.template(in: language) }
    }

    /// The travel greetings for `place` in `language`: those that name a place, filled with its
    /// name; for no place, those that name none.
    public static func travel(at place: String?, in language: GreetingLanguage) -> [Printing.GreetingTemplate] {
        entries.filter { $0.occasion == .travel && $0.usesPlace == (place != nil) }.map { entry in
            var template = entry.template(in: language)
            if let place { template.text = template.text.replacingOccurrences(of: placeholder, with: place) }
            return template
        }
    }

    /// Every greeting, by occasion.
    public static let entries: [Entry] =
        make(.holiday, holiday) + make(.birthday, birthday) + make(.thanks, thanks) + make(.travel, travel)
        + make(.congratulations, congratulations) + make(.seasonal, seasonal)

    private static func make(_ occasion: Printing.GreetingOccasion, _ rows: [(String, String, String)]) -> [Entry] {
        rows.enumerated().map { index, row in
            let number = index + 1 < 10 ? "0\(index + 1)" : "\(index + 1)"
            return Entry(
                id: "\(occasion.rawValue)-\(number)", occasion: occasion, texts: [.en: row.0, .sv: row.1, .af: row.2])
        }
    }

    // (English, Swedish, Afrikaans)
    private static let holiday: [(String, String, String)] = [
        (
            "Merry Christmas and a happy New Year!", "God jul och gott nytt år!",
            "Geseënde Kersfees en 'n voorspoedige Nuwejaar!"
        ),
        (
            "Warm wishes for a peaceful holiday season.", "Varma hälsningar inför en fridfull helg.",
            "Warm wense vir 'n vreedsame feesseisoen."
        ),
        ("Happy holidays from all of us!", "Glada helgdagar från oss alla!", "Gelukkige feesdae van ons almal!"),
        (
            "Happy New Year! May it bring you joy and good health.",
            "Gott nytt år! Må det ge dig glädje och god hälsa.",
            "Gelukkige Nuwejaar! Mag dit vir jou vreugde en goeie gesondheid bring."
        ),
        (
            "Happy Easter! Enjoy the long weekend.", "Glad påsk! Njut av den långa helgen.",
            "Geseënde Paasfees! Geniet die langnaweek."
        ),
        (
            "Wishing you light and warmth this Christmas.", "Jag önskar dig ljus och värme i jul.",
            "Ek wens jou lig en warmte toe hierdie Kersfees."
        ),
        (
            "Season's greetings and best wishes for the year ahead.",
            "God helg och alla goda önskningar inför det nya året.",
            "Seisoensgroete en beste wense vir die jaar wat voorlê."
        ),
        (
            "May your holidays be filled with laughter and good food.", "Må helgerna fyllas av skratt och god mat.",
            "Mag jou vakansie vol lag en lekker kos wees."
        ),
        (
            "Cheers to a wonderful new year together!", "Skål för ett underbart nytt år tillsammans!",
            "Kom ons klink op 'n wonderlike nuwe jaar saam!"
        ),
        (
            "Thinking of you this holiday season.", "Jag tänker på dig under helgerna.",
            "Ek dink aan jou hierdie feesseisoen."
        ),
        (
            "Have a relaxing holiday and come back rested.", "Ha en avkopplande ledighet och kom tillbaka utvilad.",
            "Geniet 'n ontspanne vakansie en kom uitgerus terug."
        ),
    ]

    private static let birthday: [(String, String, String)] = [
        ("Happy birthday!", "Grattis på födelsedagen!", "Veels geluk met jou verjaarsdag!"),
        (
            "Wishing you a wonderful birthday and a fantastic year ahead.",
            "Jag önskar dig en underbar födelsedag och ett fantastiskt år.",
            "Ek wens jou 'n wonderlike verjaarsdag en 'n fantastiese jaar wat voorlê."
        ),
        (
            "Happy birthday! I hope all your wishes come true.",
            "Grattis på födelsedagen! Hoppas att alla dina önskningar går i uppfyllelse.",
            "Veels geluk! Ek hoop al jou wense word waar."
        ),
        (
            "Another year older, another year wiser. Happy birthday!", "Ett år äldre, ett år klokare. Grattis!",
            "Een jaar ouer, een jaar wyser. Veels geluk!"
        ),
        (
            "Have a fabulous birthday full of cake and celebration!",
            "Ha en fantastisk födelsedag full av tårta och firande!",
            "Geniet 'n fantastiese verjaarsdag vol koek en feesvieringe!"
        ),
        (
            "Sending you a big birthday hug from afar.", "Jag skickar en stor födelsedagskram på avstånd.",
            "Ek stuur vir jou 'n groot verjaarsdagdrukkie van ver af."
        ),
        (
            "Happy birthday to someone who makes every day brighter.",
            "Grattis till någon som gör varje dag ljusare.", "Veels geluk aan iemand wat elke dag helderder maak."
        ),
        (
            "May your birthday be as special as you are.", "Må din födelsedag bli lika speciell som du är.",
            "Mag jou verjaarsdag net so spesiaal wees soos jy."
        ),
        (
            "Happy birthday! Enjoy your day to the fullest.", "Grattis på födelsedagen! Njut av dagen till fullo.",
            "Veels geluk! Geniet jou dag ten volle."
        ),
        (
            "Raising a glass to you on your birthday!", "Jag höjer ett glas för dig på din födelsedag!",
            "Ek lig my glas vir jou op jou verjaarsdag!"
        ),
        (
            "Happy birthday! Wish I could be there to celebrate with you.",
            "Grattis på födelsedagen! Önskar att jag kunde vara där och fira med dig.",
            "Veels geluk! Ek wens ek kon daar wees om saam met jou te vier."
        ),
    ]

    private static let thanks: [(String, String, String)] = [
        ("Thank you so much!", "Tack så mycket!", "Baie dankie!"),
        ("Thank you for your kindness.", "Tack för din vänlighet.", "Dankie vir jou vriendelikheid."),
        ("Thank you for the lovely gift.", "Tack för den fina presenten.", "Dankie vir die pragtige geskenk."),
        (
            "Thank you for a wonderful time together.", "Tack för en underbar tid tillsammans.",
            "Dankie vir 'n wonderlike tyd saam."
        ),
        (
            "Thanks for always being there for me.", "Tack för att du alltid finns där för mig.",
            "Dankie dat jy altyd daar is vir my."
        ),
        (
            "Thank you for your hospitality. We felt right at home.", "Tack för gästfriheten. Vi kände oss som hemma.",
            "Dankie vir julle gasvryheid. Ons het sommer dadelik tuis gevoel."
        ),
        (
            "Thank you for your help. It meant a lot.", "Tack för hjälpen. Det betydde mycket.",
            "Dankie vir jou hulp. Dit het baie beteken."
        ),
        (
            "A big thank you from the bottom of my heart.", "Ett stort tack från djupet av mitt hjärta.",
            "'n Groot dankie uit die diepte van my hart."
        ),
        ("Thank you for the delicious dinner!", "Tack för den goda middagen!", "Dankie vir die heerlike ete!"),
        (
            "Thanks for making my day special.", "Tack för att du gjorde min dag speciell.",
            "Dankie dat jy my dag spesiaal gemaak het."
        ),
        (
            "Thank you for everything you have taught me.", "Tack för allt du har lärt mig.",
            "Dankie vir alles wat jy my geleer het."
        ),
    ]

    private static let travel: [(String, String, String)] = [
        ("Greetings from {place}!", "Hälsningar från {place}!", "Groete uit {place}!"),
        ("Wish you were here in {place}!", "Önskar att du var här i {place}!", "Ek wens jy was hier in {place}!"),
        (
            "Having a wonderful time in {place}.", "Vi har det underbart i {place}.",
            "Ons geniet dit geweldig in {place}."
        ),
        ("Sunny greetings from {place}!", "Soliga hälsningar från {place}!", "Sonnige groete uit {place}!"),
        (
            "{place} is even more beautiful than I imagined.", "{place} är ännu vackrare än jag föreställt mig.",
            "{place} is selfs mooier as wat ek my voorgestel het."
        ),
        ("Thinking of you from {place}.", "Jag tänker på dig här i {place}.", "Ek dink aan jou hier in {place}."),
        ("Wish you were here!", "Önskar att du var här!", "Ek wens jy was hier!"),
        (
            "Greetings from our holiday! The weather is perfect.", "Hälsningar från semestern! Vädret är perfekt.",
            "Groete van ons vakansie! Die weer is pragtig."
        ),
        (
            "Exploring new places and thinking of you.", "Upptäcker nya platser och tänker på dig.",
            "Ons verken nuwe plekke en dink aan jou."
        ),
        (
            "The adventure continues. See you soon!", "Äventyret fortsätter. Vi ses snart!",
            "Die avontuur gaan voort. Sien jou gou!"
        ),
        (
            "Arrived safely. Love from the road!", "Framme i god behåll. Kramar från resan!",
            "Veilig aangekom. Baie liefde van die pad af!"
        ),
    ]

    private static let congratulations: [(String, String, String)] = [
        ("Congratulations!", "Hjärtliga gratulationer!", "Baie geluk!"),
        ("Congratulations on your graduation!", "Grattis till examen!", "Baie geluk met jou gradeplegtigheid!"),
        ("Congratulations on your new job!", "Grattis till det nya jobbet!", "Baie geluk met jou nuwe werk!"),
        (
            "Congratulations on your wedding! Wishing you a lifetime of happiness.",
            "Grattis på bröllopsdagen! Vi önskar er ett helt liv av lycka.",
            "Baie geluk met julle troue! Ons wens julle lewenslange geluk toe."
        ),
        ("Congratulations on the new baby!", "Grattis till bebisen!", "Baie geluk met die nuwe baba!"),
        ("Congratulations on your new home!", "Grattis till det nya hemmet!", "Baie geluk met julle nuwe huis!"),
        ("Well done! You earned it.", "Bra jobbat! Du har förtjänat det.", "Mooi so! Jy het dit verdien."),
        ("So proud of you. Congratulations!", "Så stolt över dig. Grattis!", "Ek is so trots op jou. Baie geluk!"),
        ("Congratulations on your engagement!", "Grattis till förlovningen!", "Baie geluk met julle verlowing!"),
        (
            "Congratulations on your retirement! Enjoy every moment.", "Grattis till pensionen! Njut av varje stund.",
            "Baie geluk met jou aftrede! Geniet elke oomblik."
        ),
        (
            "Congratulations on passing your exams!", "Grattis till att du klarade proven!",
            "Baie geluk dat jy jou eksamens geslaag het!"
        ),
    ]

    private static let seasonal: [(String, String, String)] = [
        (
            "Happy spring! Enjoy the first warm days.", "Glad vår! Njut av de första varma dagarna.",
            "Gelukkige lente! Geniet die eerste warm dae."
        ),
        (
            "Summer greetings! Enjoy the long, light evenings.", "Sommarhälsningar! Njut av de långa, ljusa kvällarna.",
            "Somergroete! Geniet die lang, ligte aande."
        ),
        (
            "Autumn greetings and cosy evenings to you.", "Höstliga hälsningar och mysiga kvällar till dig.",
            "Herfsgroete en knus aande vir jou."
        ),
        ("Stay warm this winter!", "Håll dig varm i vinter!", "Bly warm hierdie winter!"),
        (
            "The first snow has fallen. Thinking of you!", "Den första snön har fallit. Jag tänker på dig!",
            "Die eerste sneeu het geval. Ek dink aan jou!"
        ),
        (
            "Wishing you a bright and blooming spring.", "Jag önskar dig en ljus och blommande vår.",
            "Ek wens jou 'n helder en bloeiende lente toe."
        ),
        (
            "Enjoy the summer sun and take it easy.", "Njut av sommarsolen och ta det lugnt.",
            "Geniet die somerson en vat dit rustig."
        ),
        (
            "Golden leaves and warm wishes from us.", "Gyllene löv och varma hälsningar från oss.",
            "Goue blare en warm wense van ons."
        ),
        (
            "Cosy winter greetings by the fire.", "Mysiga vinterhälsningar från brasan.",
            "Knus wintergroete van langs die vuur."
        ),
        (
            "A new season, a fresh start. All the best!", "En ny årstid, en nystart. Allt gott!",
            "'n Nuwe seisoen, 'n nuwe begin. Alles van die beste!"
        ),
        (
            "May the rains bring green gardens and good harvests.", "Må regnet ge gröna trädgårdar och goda skördar.",
            "Mag die reën groen tuine en goeie oeste bring."
        ),
    ]
}
