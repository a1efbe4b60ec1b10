import AuthContract
import Contract
import Foundation
import SocialContract
import Testing

@Suite("social: the directory and its privacy rules (PostgreSQL)")
struct DirectoryTests {
    /// A name no other test's users share, so searches see only this test's people.
    static func unique() -> String {
        let letters = UUID().uuidString.compactMap(\.hexDigitValue).prefix(10).map { Character(UnicodeScalar(97 + $0)!) }
        return "zq" + String(letters) + "x"
    }

    @Test("by display name and username: prefix, a word's start and typos; never an address in the results")
    func byName() async throws {
        try await SocialDatabase.with { db in
            let tag = Self.unique()
            let me = try await db.user()
            let ann = try await db.user("\(tag)_ann", displayName: "Annika \(tag)berg", email: "annika@example.org")
            let found = try await db.call(Social.SearchUsers.self, .init(q: "\(tag)_an"), as: me)
            #expect(found.items.map(\.userId) == [ann.uuidString.lowercased()])
            #expect(found.items.first?.displayName == "Annika \(tag)berg" && found.items.first?.relation == Social.Relation.none)
            let byWord = try await db.call(Social.SearchUsers.self, .init(q: "\(tag)berg"), as: me)
            #expect(byWord.items.map(\.userId) == [ann.uuidString.lowercased()])
            // A letter missing from the name still finds it.
            let fuzzy = try await db.call(Social.SearchUsers.self, .init(q: "Anika \(tag)berg"), as: me)
            #expect(fuzzy.items.map(\.userId).contains(ann.uuidString.lowercased()))
            let reply = String(decoding: try Wire.makeEncoder().encode(found), as: UTF8.self)
            #expect(!reply.contains("annika@example.org") && !reply.contains("@"))
        }
    }

    @Test("an e-mail address is found only whole: never by prefix, similarity or name search")
    func emailOnlyExact() async throws {
        try await SocialDatabase.with { db in
            let tag = Self.unique()
            let me = try await db.user()
            let mail = "\(tag)@example.org"
            let bo = try await db.user(mail)
            let carl = try await db.user(displayName: "Carl", email: "carl.\(tag)@example.org")
            #expect(try await db.call(Social.SearchUsers.self, .init(q: mail), as: me).items.map(\.userId) == [bo.uuidString.lowercased()])
            #expect(try await db.call(Social.SearchUsers.self, .init(q: mail.uppercased()), as: me).items.count == 1)
            #expect(
                try await db.call(Social.SearchUsers.self, .init(q: "carl.\(tag)@example.org"), as: me).items.map(\.userId)
                    == [carl.uuidString.lowercased()])
            for partial in [tag, "\(tag)@", "\(tag)@example", "\(tag)@example.or", "carl.\(tag)", "example.org"] {
                let hits = try await db.call(Social.SearchUsers.self, .init(q: partial), as: me).items
                #expect(!hits.contains { $0.userId == bo.uuidString.lowercased() }, "\(partial)")
                #expect(!hits.contains { $0.userId == carl.uuidString.lowercased() && partial.contains("@") }, "\(partial)")
            }
        }
    }

    @Test("a phone number is found whole in E.164 form")
    func phone() async throws {
        try await SocialDatabase.with { db in
            let me = try await db.user()
            let number = "+4670" + String(UInt32.random(in: 1_000_000...9_999_999))
            let cy = try await db.user(phone: number)
            #expect(try await db.call(Social.SearchUsers.self, .init(q: number), as: me).items.map(\.userId) == [cy.uuidString.lowercased()])
            #expect(try await db.call(Social.SearchUsers.self, .init(q: String(number.dropLast())), as: me).items.isEmpty)
        }
    }

    @Test("privacy: not findable by contact, not by name; the settings default on; blocked users never see each other")
    func privacy() async throws {
        try await SocialDatabase.with { db in
            let tag = Self.unique()
            let me = try await db.user()
            let mail = "\(tag)@example.org"
            let dee = try await db.user("\(tag)_dee", email: mail)
            let defaults = try await db.call(Social.GetPrivacy.self, Empty(), as: dee)
            #expect(defaults == Social.Privacy(findableByContact: true, findableByName: true))
            _ = try await db.call(Social.SetPrivacy.self, .init(findableByContact: false, findableByName: true), as: dee)
            #expect(try await db.call(Social.SearchUsers.self, .init(q: mail), as: me).items.isEmpty)
            #expect(try await db.call(Social.SearchUsers.self, .init(q: "\(tag)_dee"), as: me).items.count == 1)
            _ = try await db.call(Social.SetPrivacy.self, .init(findableByContact: true, findableByName: false), as: dee)
            #expect(try await db.call(Social.SearchUsers.self, .init(q: "\(tag)_dee"), as: me).items.isEmpty)
            #expect(try await db.call(Social.SearchUsers.self, .init(q: mail), as: me).items.count == 1)
            // A profile change keeps the settings.
            try await db.deliver(
                Auth.ProfileChanged.topic,
                Auth.ProfileChanged(
                    userId: dee.uuidString.lowercased(), username: "\(tag)_dee", displayName: "Dee", email: mail,
                    phone: nil))
            #expect(try await db.call(Social.GetPrivacy.self, Empty(), as: dee).findableByName == false)
            // Blocks hide both ways, whoever blocked.
            _ = try await db.call(Social.BlockUser.self, me.ref, as: dee)
            #expect(try await db.call(Social.SearchUsers.self, .init(q: mail), as: me).items.isEmpty)
            #expect(try await db.call(Social.SearchUsers.self, .init(q: "\(tag)"), as: dee).items.allSatisfy { $0.userId != me.uuidString.lowercased() })
        }
    }

    @Test("names that start with the text come first, then similar ones; pages cross from one to the other without repeats")
    func prefixBeforeSimilar() async throws {
        try await SocialDatabase.with { db in
            let tag = Self.unique()
            let me = try await db.user()
            var starts: Set<String> = []
            starts.insert(try await db.user("\(tag)_a").uuidString.lowercased())
            starts.insert(try await db.user("\(tag)_b").uuidString.lowercased())
            starts.insert(try await db.user("u_\(UUID().uuidString.prefix(6))", displayName: "Ann \(tag)").uuidString.lowercased())
            // One letter changed in the middle: similar, but no word starts with the text.
            var letters = Array(tag)
            letters[7] = letters[7] == "q" ? "p" : "q"
            var similar: Set<String> = []
            similar.insert(try await db.user("\(String(letters))_c").uuidString.lowercased())
            similar.insert(try await db.user("\(String(letters))_d").uuidString.lowercased())
            var seen: [String] = []
            var cursor: String?
            repeat {
                let page = try await db.call(Social.SearchUsers.self, .init(q: tag, limit: 2, cursor: cursor), as: me)
                seen += page.items.map(\.userId)
                cursor = page.nextCursor
            } while cursor != nil
            #expect(seen.count == 5 && Set(seen).count == 5, "\(seen)")
            #expect(Set(seen.prefix(3)) == starts)
            #expect(Set(seen.suffix(2)) == similar)
        }
    }

    @Test("results show the relation, leave out the caller, and page without repeats; bad input names the field")
    func relationsAndPaging() async throws {
        try await SocialDatabase.with { db in
            let tag = Self.unique()
            let me = try await db.user("\(tag)_me")
            var people: [UUID] = []
            for index in 0..<12 { people.append(try await db.user("\(tag)_p\(index)")) }
            _ = try await db.call(Social.SendFriendRequest.self, people[0].ref, as: me)
            _ = try await db.call(Social.SendFriendRequest.self, me.ref, as: people[1])
            _ = try await db.call(Social.SendFriendRequest.self, people[2].ref, as: me)
            _ = try await db.call(Social.AcceptFriendRequest.self, me.ref, as: people[2])
            var seen: [Social.Person] = []
            var cursor: String?
            repeat {
                let page = try await db.call(Social.SearchUsers.self, .init(q: tag, limit: 5, cursor: cursor), as: me)
                seen += page.items
                cursor = page.nextCursor
            } while cursor != nil
            #expect(seen.count == 12 && Set(seen.map(\.userId)).count == 12)
            let relation = Dictionary(uniqueKeysWithValues: seen.map { ($0.userId, $0.relation) })
            #expect(relation[people[0].uuidString.lowercased()] == .requested)
            #expect(relation[people[1].uuidString.lowercased()] == .incoming)
            #expect(relation[people[2].uuidString.lowercased()] == .friends)
            #expect(relation[people[3].uuidString.lowercased()] == Social.Relation.none)
            #expect(await db.error(Social.SearchUsers.self, .init(q: " "), as: me)?.field == "q")
            #expect(await db.error(Social.SearchUsers.self, .init(q: "a", limit: 51), as: me)?.field == "limit")
            #expect(await db.error(Social.SearchUsers.self, .init(q: "a"), as: nil)?.code == .unauthenticated)
        }
    }

    /// `word` with its letter at `index` doubled, as the bench's typos are made.
    static func doubled(_ word: String, at index: Int) -> String {
        var letters = Array(word)
        letters.insert(letters[index], at: index)
        return String(letters)
    }

    /// How many people the lexicon counts for `word` (0: not in it), and how many rows of
    /// social.name_words it has.
    static func lexicon(_ word: String, _ db: SocialDatabase) async throws -> (people: Int, rows: Int) {
        (
            try await db.count("SELECT coalesce(sum(people), 0)::bigint FROM social.name_lexicon WHERE word = \(word)"),
            try await db.count("SELECT count(*) FROM social.name_words WHERE word = \(word)")
        )
    }

    @Test("typos go through the lexicon of name words: a doubled letter finds the surname, after those who start with the text")
    func typoThroughLexicon() async throws {
        try await SocialDatabase.with { db in
            let tag = Self.unique()
            let me = try await db.user()
            // Words of their own: two tags are not similar (they share two trigrams of twenty).
            let surname = "\(tag)qvist"
            let ann = try await db.user("u_\(UUID().uuidString.prefix(6))", displayName: "Ann \(surname.capitalized)")
            let bo = try await db.user("bo.\(surname)_7")
            // The words are in the lexicon, lower case, once per person, split at punctuation.
            #expect(try await Self.lexicon(surname, db) == (2, 2))
            #expect(try await Self.lexicon("bo", db).rows >= 1)
            let typo = Self.doubled(surname, at: 12)
            let found = try await db.call(Social.SearchUsers.self, .init(q: typo), as: me)
            #expect(Set(found.items.map(\.userId)) == Set([ann, bo].map { $0.uuidString.lowercased() }))
            // Accents and case are folded the same way on both sides.
            let other = Self.unique()
            let accented = try await db.user(displayName: "Éva \(other)ström")
            #expect(try await Self.lexicon("eva", db).rows >= 1)
            #expect(try await Self.lexicon("\(other)strom", db) == (1, 1))
            let byTypo = try await db.call(Social.SearchUsers.self, .init(q: "\(other)STROOM"), as: me)
            #expect(byTypo.items.map(\.userId) == [accented.uuidString.lowercased()])
            // Several words: each must be close to a word of the name.
            let both = try await db.call(Social.SearchUsers.self, .init(q: "Anne \(typo)"), as: me)
            #expect(both.items.map(\.userId) == [ann.uuidString.lowercased()])
            // Someone whose name starts with the text comes before the typo matches.
            let exact = try await db.user(displayName: typo)
            let ranked = try await db.call(Social.SearchUsers.self, .init(q: typo), as: me)
            #expect(ranked.items.first?.userId == exact.uuidString.lowercased() && ranked.items.count == 3)
        }
    }

    @Test("the lexicon follows renames, the findable-by-name setting and deleted accounts; an address is never a word")
    func lexiconFollowsChanges() async throws {
        try await SocialDatabase.with { db in
            let tag = Self.unique()
            let me = try await db.user()
            let old = "\(Self.unique())berg", new = "\(Self.unique())lund"
            let cy = try await db.user("cy_\(old)", displayName: "Cy \(old)")
            let dee = try await db.user(displayName: "Dee \(old)")
            #expect(try await Self.lexicon(old, db) == (2, 2))
            func finds(_ q: String, _ user: UUID) async throws -> Bool {
                try await db.call(Social.SearchUsers.self, .init(q: q), as: me).items.contains {
                    $0.userId == user.uuidString.lowercased()
                }
            }
            #expect(try await finds(Self.doubled(old, at: 12), cy))
            // A rename takes the old words out and puts the new ones in, in the same transaction.
            try await db.deliver(
                Auth.ProfileChanged.topic,
                Auth.ProfileChanged(
                    userId: cy.uuidString.lowercased(), username: "cy_\(new)", displayName: "Cy \(new)", email: nil,
                    phone: nil))
            #expect(try await Self.lexicon(old, db) == (1, 1))
            #expect(try await Self.lexicon(new, db) == (1, 1))
            #expect(try await !finds(Self.doubled(old, at: 12), cy))
            #expect(try await finds(Self.doubled(new, at: 12), cy))
            // Not findable by name: out of the lexicon; findable again: back.
            _ = try await db.call(Social.SetPrivacy.self, .init(findableByContact: true, findableByName: false), as: cy)
            #expect(try await Self.lexicon(new, db) == (0, 0))
            #expect(try await !finds(Self.doubled(new, at: 12), cy))
            _ = try await db.call(Social.SetPrivacy.self, .init(findableByContact: true, findableByName: true), as: cy)
            #expect(try await Self.lexicon(new, db) == (1, 1))
            #expect(try await finds(Self.doubled(new, at: 12), cy))
            // A deleted account leaves no word behind; a word nobody has is deleted.
            try await db.deliver(Auth.AccountDeleted.topic, Auth.AccountDeleted(userId: dee.uuidString.lowercased()))
            try await db.deliver(Auth.AccountDeleted.topic, Auth.AccountDeleted(userId: cy.uuidString.lowercased()))
            #expect(try await Self.lexicon(old, db) == (0, 0))
            #expect(try await Self.lexicon(new, db) == (0, 0))
            #expect(try await db.count("SELECT count(*) FROM social.name_lexicon WHERE people <= 0") == 0)
            // A username that is an e-mail address gives no words (nor does the e-mail address).
            let mail = try await db.user("\(tag)mail@example.org", email: "\(tag)other@example.org")
            #expect(try await db.count("SELECT count(*) FROM social.name_lexicon WHERE word LIKE \(tag + "%")") == 0)
            #expect(try await db.count("SELECT count(*) FROM social.name_words WHERE user_id = \(mail)") == 0)
            #expect(try await !finds(Self.doubled("\(tag)mail", at: 12), mail))
        }
    }
}
