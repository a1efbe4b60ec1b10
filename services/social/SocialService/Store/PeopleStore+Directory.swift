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
    /// planner finds cheaper), and only if they do not fill the page, the names merely similar
    /// to it (scored by `word_similarity` and ranked), which follow all prefix hits.
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
            let starts = prefix + "%"
            let wordStarts = "% " + prefix + "%"
            let similar: PostgresQuery = """
                SELECT user_id, username, display_name,
                    least(999999, round(word_similarity(\(text), name_text) * 1000000))::bigint AS score
                FROM social.people
                WHERE findable_by_name AND \(text) <% name_text
                  AND NOT (name_text LIKE \(starts) OR name_text LIKE \(wordStarts))
                """
            let similarHits = try await collect(
                Self.ranked(
                    similar, caller: caller, afterScore: afterScore, afterId: afterId, limit: limit - hits.count))
            return hits + similarHits
        }
        return try await collect(
            Self.ranked(match, caller: caller, afterScore: afterScore, afterId: afterId, limit: limit))
    }

    /// The rows of a query made by ``ranked(_:caller:afterScore:afterId:limit:)`` or
    /// ``prefixHits(_:caller:afterId:limit:)``.
    private func collect(_ query: PostgresQuery) async throws -> [Hit] {
        let rows = try await client.query(query, logger: logger)
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

    /// `match` (rows of user_id, username, display_name, score) without the caller and anyone
    /// blocked either way, with the caller's relation to each, best first, as one keyset page.
    static func ranked(_ match: PostgresQuery, caller: UUID, afterScore: Int64, afterId: UUID, limit: Int)
        -> PostgresQuery
    {
        var query = match
        let offset = query.binds.count
        query.sql = """
            SELECT f.user_id, f.username, f.display_name, f.score,
                CASE WHEN EXISTS (SELECT 1 FROM social.friendships WHERE user_id = $\(offset + 1) AND friend_id = f.user_id)
                         THEN 'friends'
                     WHEN EXISTS (SELECT 1 FROM social.friend_requests WHERE from_user = $\(offset + 1) AND to_user = f.user_id)
                         THEN 'requested'
                     WHEN EXISTS (SELECT 1 FROM social.friend_requests WHERE from_user = f.user_id AND to_user = $\(offset + 1))
                         THEN 'incoming'
                     ELSE 'none' END
            FROM (\(match.sql)) f
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
        let rows = try await client.query(
            "SELECT findable_by_contact, findable_by_name FROM social.people WHERE user_id = \(user)", logger: logger)
        for try await (contact, name) in rows.decode((Bool, Bool).self) {
            return Social.Privacy(findableByContact: contact, findableByName: name)
        }
        return Social.Privacy(findableByContact: true, findableByName: true)
    }

    /// Saves `user`'s directory settings; false when the directory does not know the user.
    func setPrivacy(_ privacy: Social.Privacy, of user: UUID) async throws -> Bool {
        let rows = try await client.query(
            """
            UPDATE social.people SET findable_by_contact = \(privacy.findableByContact),
                findable_by_name = \(privacy.findableByName)
            WHERE user_id = \(user) RETURNING 1
            """, logger: logger)
        return try await rows.collect().count == 1
    }
}
