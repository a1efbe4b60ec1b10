import Contract
import Foundation
import PostgresNIO
import SocialContract

extension PeopleStore {
    /// One directory hit: the person as `caller` may see them, and its rank for the cursor.
    struct Hit: Sendable {
        let person: Social.Person
        let score: Int64
        let id: UUID
    }

    /// The score of a name that starts with the search text, or has a word that does: above any
    /// similarity score (those are at most 999,999), so such people come first.
    static let prefixScore: Int64 = 1_000_000

    /// The people `query` finds for `caller`, best first, after `cursor`; `limit` rows at most.
    ///
    /// A name search reads in two steps so that a short, common prefix stays cheap: first the
    /// people whose name or a word of it starts with the text (all of score 1,000,000, so they
    /// need no scoring and come by id, from the primary key or the trigram index, whichever the
    /// planner finds cheaper), and only if they do not fill the page, the typo matches: people
    /// with a word close to each word of the text, found through the lexicon of distinct name
    /// words (migration 0007), scored below every prefix hit.
    func search(
        _ query: DirectoryQuery, caller: UUID, after cursor: KeysetCursor?, limit: Int
    ) async throws -> [Hit] {
        let afterScore = cursor?.micros ?? Int64.max
        let lastId = UUID(uuidString: "ffffffff-ffff-ffff-ffff-ffffffffffff")!
        let afterId = cursor?.id ?? lastId
        let match: PostgresQuery
        switch query {
        case .nothing:
            return []
        case .email(let digest):
            match = """
                SELECT user_id, username, display_name, 1000000::bigint AS score FROM social.people
                WHERE findable_by_contact AND email_digests @> ARRAY[\(digest)]::text[]
                """
        case .phone(let digest):
            match = """
                SELECT user_id, username, display_name, 1000000::bigint AS score FROM social.people
                WHERE findable_by_contact AND phone_digest = \(digest)
                """
        case .name(let text, let prefix):
            var hits: [Hit] = []
            if afterScore >= Self.prefixScore {
                hits = try await collect(
                    Self.prefixHits(
                        prefix, caller: caller, afterId: afterScore > Self.prefixScore ? lastId : afterId, limit: limit)
                )
            }
            guard hits.count < limit, query.matchesSimilarNames else { return hits }
            let words = query.words.count
            guard words > 0 else { return hits }
            let remaining = limit - hits.count
            let similarHits = try await collect(
                words == 1
                    ? Self.similarWordHits(
                        text, likePrefix: prefix, caller: caller, afterScore: afterScore, afterId: afterId,
                        limit: remaining)
                    : Self.ranked(
                        Self.similarWords(text, likePrefix: prefix), caller: caller, afterScore: afterScore,
                        afterId: afterId, limit: remaining))
            return hits + similarHits
        }
        return try await collect(
            Self.ranked(match, caller: caller, afterScore: afterScore, afterId: afterId, limit: limit))
    }

    /// The rows of a query made by ``ranked(_:caller:afterScore:afterId:limit:)`` or
    /// ``prefixHits(_:caller:afterId:limit:)``.
    private func collect(_ query: PostgresQuery) async throws -> [Hit] {
        let rows = try await client.fetch(query, logger: logger)
        var hits: [Hit] = []
        for try await (id, username, display, score, relation) in rows.decode(
            (UUID, String, String?, Int64, String).self)
        {
            hits.append(
                Hit(
                    person: Social.Person(
                        userId: id.uuidString.lowercased(), username: username, displayName: display,
                        relation: Social.Relation(rawValue: relation) ?? .none), score: score, id: id))
        }
        return hits
    }

    /// People findable by name whose name, or a word of it, starts with `likePrefix`, without
    /// the caller and anyone blocked either way, by id (descending) after `afterId`.
    static func prefixHits(_ likePrefix: String, caller: UUID, afterId: UUID, limit: Int) -> PostgresQuery {
        let starts = likePrefix + "%"
        let wordStarts = "% " + likePrefix + "%"
        return """
            SELECT p.user_id, p.username, p.display_name, 1000000::bigint,
                CASE WHEN EXISTS (SELECT 1 FROM social.friendships WHERE user_id = \(caller) AND friend_id = p.user_id)
                         THEN 'friends'
                     WHEN EXISTS (SELECT 1 FROM social.friend_requests WHERE from_user = \(caller) AND to_user = p.user_id)
                         THEN 'requested'
                     WHEN EXISTS (SELECT 1 FROM social.friend_requests WHERE from_user = p.user_id AND to_user = \(caller))
                         THEN 'incoming'
                     ELSE 'none' END
            FROM social.people p
            WHERE p.findable_by_name AND (p.name_text LIKE \(starts) OR p.name_text LIKE \(wordStarts))
              AND p.user_id < \(afterId) AND p.user_id <> \(caller)
              AND NOT EXISTS (SELECT 1 FROM social.blocks
                              WHERE (blocker = \(caller) AND blocked = p.user_id)
                                 OR (blocker = p.user_id AND blocked = \(caller)))
            ORDER BY p.user_id DESC LIMIT \(limit)
            """
    }

    /// Typo matches of a one-word text: the people with a word close to it (the lexicon's words
    /// of similarity ``DirectoryQuery/wordSimilarityMinimum`` or more, through its trigram index,
    /// at most ``DirectoryQuery/similarWordsPerWord`` of them), scored by that
    /// word's similarity (below 1,000,000), best first, as a keyset page; prefix hits (of
    /// ``prefixHits(_:caller:afterId:limit:)``) left out. Each close word's people are read
    /// from the (word, user_id) index backwards, `limit` at most, so the cost does not grow with
    /// how many people share the word. Someone with two close words counts once, under the closer.
    static func similarWordHits(
        _ text: String, likePrefix: String, caller: UUID, afterScore: Int64, afterId: UUID, limit: Int
    ) -> PostgresQuery {
        let starts = likePrefix + "%"
        let wordStarts = "% " + likePrefix + "%"
        let lastId = UUID(uuidString: "ffffffff-ffff-ffff-ffff-ffffffffffff")!
        return """
            WITH typed AS (SELECT (social.name_words(\(text)))[1] AS w),
            near AS (
                SELECT l.word, least(999999, round(public.similarity(l.word, typed.w) * 1000000))::bigint AS score
                FROM social.name_lexicon l, typed
                WHERE l.word OPERATOR(public.%) typed.w
                  AND public.similarity(l.word, typed.w) >= \(DirectoryQuery.wordSimilarityMinimum)
                ORDER BY score DESC, l.word LIMIT \(DirectoryQuery.similarWordsPerWord)
            )
            SELECT h.user_id, h.username, h.display_name, h.score,
                CASE WHEN EXISTS (SELECT 1 FROM social.friendships WHERE user_id = \(caller) AND friend_id = h.user_id)
                         THEN 'friends'
                     WHEN EXISTS (SELECT 1 FROM social.friend_requests WHERE from_user = \(caller) AND to_user = h.user_id)
                         THEN 'requested'
                     WHEN EXISTS (SELECT 1 FROM social.friend_requests WHERE from_user = h.user_id AND to_user = \(caller))
                         THEN 'incoming'
                     ELSE 'none' END
            FROM near n CROSS JOIN LATERAL (
                SELECT p.user_id, p.username, p.display_name, n.score
                FROM social.name_words t JOIN social.people p ON p.user_id = t.user_id
                WHERE t.word = n.word
                  AND t.user_id < CASE WHEN n.score = \(afterScore) THEN \(afterId) ELSE \(lastId) END
                  AND t.user_id <> \(caller) AND p.findable_by_name
                  AND NOT (p.name_text LIKE \(starts) OR p.name_text LIKE \(wordStarts))
                  AND NOT EXISTS (SELECT 1 FROM social.blocks
                                  WHERE (blocker = \(caller) AND blocked = t.user_id)
                                     OR (blocker = t.user_id AND blocked = \(caller)))
                  AND NOT EXISTS (SELECT 1 FROM near b JOIN social.name_words o ON o.word = b.word AND o.user_id = t.user_id
                                  WHERE b.score > n.score OR (b.score = n.score AND b.word < n.word))
                ORDER BY t.user_id DESC LIMIT \(limit)
            ) h
            WHERE n.score <= \(afterScore)
            ORDER BY h.score DESC, h.user_id DESC LIMIT \(limit)
            """
    }

    /// Typo matches of a text of several words, for ``ranked(_:caller:afterScore:afterId:limit:)``:
    /// the people who have, for every word of the text, a word close to it (from the lexicon),
    /// scored by the mean of the best similarity for each word; prefix hits left out.
    static func similarWords(_ text: String, likePrefix: String) -> PostgresQuery {
        let starts = likePrefix + "%"
        let wordStarts = "% " + likePrefix + "%"
        return """
            WITH words AS (
                SELECT w, ord FROM unnest(social.name_words(\(text))) WITH ORDINALITY AS u(w, ord)
            ), near AS (
                SELECT words.ord, l.word, l.sim FROM words CROSS JOIN LATERAL (
                    SELECT word, public.similarity(word, words.w) AS sim FROM social.name_lexicon
                    WHERE word OPERATOR(public.%) words.w
                      AND public.similarity(word, words.w) >= \(DirectoryQuery.wordSimilarityMinimum)
                    ORDER BY sim DESC, word LIMIT \(DirectoryQuery.similarWordsPerWord)) l
            ), best AS (
                SELECT t.user_id, n.ord, max(n.sim) AS sim
                FROM near n JOIN social.name_words t ON t.word = n.word GROUP BY t.user_id, n.ord
            ), matched AS (
                SELECT user_id, least(999999, round(avg(sim) * 1000000))::bigint AS score FROM best
                GROUP BY user_id HAVING count(*) = (SELECT count(*) FROM words)
            )
            SELECT p.user_id, p.username, p.display_name, m.score
            FROM matched m JOIN social.people p ON p.user_id = m.user_id
            WHERE p.findable_by_name AND NOT (p.name_text LIKE \(starts) OR p.name_text LIKE \(wordStarts))
            """
    }

    /// `match` (rows of user_id, username, display_name, score) without the caller and anyone
    /// blocked either way, with the caller's relation to each, best first, as one keyset page.
    static func ranked(_ match: PostgresQuery, caller: UUID, afterScore: Int64, afterId: UUID, limit: Int)
        -> PostgresQuery
    {
        var query = match
        let offset = query.binds.count
        // MATERIALIZED: the match is read first and alone. Inlined, an e-mail match (one row, which
        // the planner guesses at 500 for an array containment) was merged into the ordered page and
        // planned as a walk of the primary key backwards until a row matched: 45-60 ms over
        // 100,000 people for one in five of the bench's searches, instead of 0.1 ms through the
        // digest index.
        query.sql = """
            WITH f AS MATERIALIZED (\(match.sql))
            SELECT f.user_id, f.username, f.display_name, f.score,
                CASE WHEN EXISTS (SELECT 1 FROM social.friendships WHERE user_id = $\(offset + 1) AND friend_id = f.user_id)
                         THEN 'friends'
                     WHEN EXISTS (SELECT 1 FROM social.friend_requests WHERE from_user = $\(offset + 1) AND to_user = f.user_id)
                         THEN 'requested'
                     WHEN EXISTS (SELECT 1 FROM social.friend_requests WHERE from_user = f.user_id AND to_user = $\(offset + 1))
                         THEN 'incoming'
                     ELSE 'none' END
            FROM f
            WHERE f.user_id <> $\(offset + 1)
              AND NOT EXISTS (SELECT 1 FROM social.blocks
                              WHERE (blocker = $\(offset + 1) AND blocked = f.user_id)
                                 OR (blocker = f.user_id AND blocked = $\(offset + 1)))
              AND (f.score, f.user_id) < ($\(offset + 2), $\(offset + 3))
            ORDER BY f.score DESC, f.user_id DESC LIMIT $\(offset + 4)
            """
        query.binds.append(caller)
        query.binds.append(afterScore)
        query.binds.append(afterId)
        query.binds.append(limit)
        return query
    }

    /// `user`'s directory settings (both on for someone the directory does not know yet).
    func privacy(of user: UUID) async throws -> Social.Privacy {
        let rows = try await client.fetch(
            "SELECT findable_by_contact, findable_by_name FROM social.people WHERE user_id = \(user)", logger: logger)
        for try await (contact, name) in rows.decode((Bool, Bool).self) {
            return Social.Privacy(findableByContact: contact, findableByName: name)
        }
        return Social.Privacy(findableByContact: true, findableByName: true)
    }

    /// Saves `user`'s directory settings; false when the directory does not know the user.
    func setPrivacy(_ privacy: Social.Privacy, of user: UUID) async throws -> Bool {
        let rows = try await client.fetch(
            """
            UPDATE social.people SET findable_by_contact = \(privacy.findableByContact),
                findable_by_name = \(privacy.findableByName)
            WHERE user_id = \(user) RETURNING 1
            """, logger: logger)
        return try await rows.collect().count == 1
    }
}
