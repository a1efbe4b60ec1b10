import CommonContract
import Foundation
import SocialContract
import SocialService
import Testing

@Suite("social: which contacts a card counts for, and the favourites order (no I/O)")
struct ContactCountRulesTests {
    static let lund = PostalAddress(line1: "Storgatan 1", city: "Lund", postalCode: "223 50", country: "SE")
    static let malmo = PostalAddress(line1: "Kungsgatan 2", city: "Malmö", country: "SE")
    static let eva = ContactRules.Reachable(id: UUID(), name: "Eva Lind", address: lund, email: "eva@example.org")
    static let bo = ContactRules.Reachable(id: UUID(), name: "Bo Ek", address: malmo, email: nil)
    static let cy = ContactRules.Reachable(id: UUID(), name: "Cy Berg", address: nil, email: "cy@example.org")

    @Test("a postcard counts by postal address, whatever name or spacing was written in by hand")
    func postcardsByAddress() {
        let written = PostalRecipient(
            name: "Grandma", address: .init(line1: " storgatan  1", city: "LUND", postalCode: "22350", country: "se"))
        let picked = PostalRecipient(name: "Bo Ek", address: Self.malmo)
        let accentless = PostalRecipient(
            name: "B. Ek", address: .init(line1: "Kungsgatan 2", line2: "c/o Ek", city: "Malmo", country: "SE"))
        let stranger = PostalRecipient(
            name: "Eva Lind", address: .init(line1: "Storgatan 3", city: "Lund", country: "SE"))
        let sent = ContactRules.cardsSent(
            postcards: [written, picked, accentless, stranger], ecards: [], to: [Self.eva, Self.bo, Self.cy])
        #expect(sent == [Self.eva.id: 1, Self.bo.id: 2])
    }

    @Test("an e-card counts by e-mail address, without case; a contact without one is never matched")
    func ecardsByEmail() {
        let sent = ContactRules.cardsSent(
            postcards: [],
            ecards: [
                .init(name: nil, email: " EVA@example.org"), .init(name: "Cy", email: "cy@example.org"),
                .init(email: "nobody@example.org"), .init(email: ""),
            ], to: [Self.eva, Self.bo, Self.cy])
        #expect(sent == [Self.eva.id: 1, Self.cy.id: 1])
    }

    @Test("a paid postcard and an e-card of one order both count; nothing matched is an empty count")
    func bothKinds() {
        let sent = ContactRules.cardsSent(
            postcards: [.init(name: "Eva Lind", address: Self.lund)], ecards: [.init(email: "eva@example.org")],
            to: [Self.eva])
        #expect(sent == [Self.eva.id: 2])
        #expect(ContactRules.cardsSent(postcards: [], ecards: [], to: [Self.eva]).isEmpty)
        #expect(ContactRules.cardsSent(postcards: [.init(name: "X", address: Self.lund)], ecards: [], to: []).isEmpty)
    }

    @Test("contacts sharing an address: the card counts for the one it names, or for each when it names none")
    func sharedAddress() {
        let max = ContactRules.Reachable(id: UUID(), name: "Max Lind", address: Self.lund, email: nil)
        let toMax = ContactRules.cardsSent(
            postcards: [.init(name: "max lind", address: Self.lund)], ecards: [], to: [Self.eva, max])
        #expect(toMax == [max.id: 1])
        let toBoth = ContactRules.cardsSent(
            postcards: [.init(name: "The Linds", address: Self.lund)], ecards: [], to: [Self.eva, max])
        #expect(toBoth == [Self.eva.id: 1, max.id: 1])
    }

    @Test("addresses: postal code and second line compared only when both give one; street, city, country always")
    func sameAddress() {
        let bare = PostalAddress(line1: "Storgatan 1", city: "Lund", country: "SE")
        #expect(ContactRules.sameAddress(Self.lund, bare))
        #expect(!ContactRules.sameAddress(Self.lund, .init(line1: "Storgatan 1", city: "Lund", postalCode: "22351", country: "SE")))
        #expect(!ContactRules.sameAddress(Self.lund, .init(line1: "Storgatan 1", city: "Lund", country: "DK")))
        #expect(!ContactRules.sameAddress(Self.lund, .init(line1: "Storgatan 1", city: "Malmö", country: "SE")))
        #expect(
            !ContactRules.sameAddress(
                .init(line1: "Storgatan 1", line2: "lgh 1101", city: "Lund", country: "SE"),
                .init(line1: "Storgatan 1", line2: "lgh 1204", city: "Lund", country: "SE")))
    }

    @Test("the favourites order: every favourite newest first, then every other contact newest first")
    func favouritesFirst() {
        let base: Int64 = 1_795_521_600_000_000
        let contacts: [(name: String, favourite: Bool, micros: Int64)] = [
            ("old favourite", true, base), ("newest", false, base + 3_000_000), ("new favourite", true, base + 2_000_000),
            ("oldest", false, base - 1_000_000),
        ]
        let ordered = contacts.sorted {
            ContactRules.favouritesKey(favourite: $0.favourite, createdMicros: $0.micros)
                > ContactRules.favouritesKey(favourite: $1.favourite, createdMicros: $1.micros)
        }
        #expect(ordered.map(\.name) == ["new favourite", "old favourite", "newest", "oldest"])
        #expect(ContactRules.favouritesKey(favourite: false, createdMicros: base) == base)
        #expect(Social.ContactOrder.standard == .favourites)
    }
}
