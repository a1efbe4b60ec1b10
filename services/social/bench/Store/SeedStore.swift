import Foundation
import Logging
import PostgresNIO

/// The rows the bench needs, written straight into social's tables, once: people with names
/// from a list of first and last names (usernames `first.lastN`, e-mail `benchN@example.org` kept
/// as its digest, as the directory keeps it), and for the launch case friendships and favourites.
struct SeedStore: Sendable {
    let client: PostgresClient
    let users: Int

    static let firstNames = [
        "Anna", "Erik", "Maria", "Lars", "Karin", "Anders", "Eva", "Johan", "Sara", "Per", "Emma", "Nils", "Ida",
        "Olof", "Lena", "Jonas", "Elin", "Mats", "Sofia", "Henrik", "Linnea", "Oskar", "Maja", "Gustav", "Alice",
        "Viktor", "Ebba", "Axel", "Klara", "Hugo", "Wilma", "Leo", "Astrid", "Liam", "Freja", "Noah", "Saga",
        "Elias", "Tove", "Isak",
    ]
    static let lastNames = [
        "Andersson", "Johansson", "Karlsson", "Nilsson", "Eriksson", "Larsson", "Olsson", "Persson", "Svensson",
        "Gustafsson", "Pettersson", "Jonsson", "Jansson", "Hansson", "Bengtsson", "Lindberg", "Jakobsson",
        "Magnusson", "Lindstrom", "Olofsson", "Lindqvist", "Lindgren", "Berg", "Axelsson", "Bergstrom", "Lundberg",
        "Lind", "Lundgren", "Lundqvist", "Mattsson", "Berglund", "Fredriksson", "Sandberg", "Henriksson",
        "Forsberg", "Sjoberg", "Wallin", "Engstrom", "Eklund", "Danielsson", "Lundin", "Hakansson", "Bjork",
        "Bergman", "Gunnarsson", "Holm", "Wikstrom", "Samuelsson", "Isaksson", "Fransson",
    ]

    /// Users 1...`users` in the directory (those already there are kept).
    func people() async throws {
        let have = try await count("SELECT count(*) FROM social.people WHERE username LIKE '%.sb%'")
        guard have < users else { return }
        let first = Self.firstNames.map { "'\($0)'" }.joined(separator: ",")
        let last = Self.lastNames.map { "'\($0)'" }.joined(separator: ",")
        let started = ContinuousClock.now
        for start in stride(from: 1, through: users, by: 20_000) {
            let end = min(users, start + 19_999)
            // Constant text and numbers only: no value from outside goes into this SQL.
            let sql = """
                INSERT INTO social.people (user_id, username, display_name, name_text, email_digests, updated_at)
                SELECT ('5bbe0000-0000-4000-8000-' || lpad(to_hex(n), 12, '0'))::uuid,
                    lower(f) || '.' || lower(l) || '.sb' || n, f || ' ' || l,
                    lower(f || ' ' || l || ' ' || f || '.' || l || '.sb' || n),
                    ARRAY[encode(sha256(convert_to('bench' || n || '@example.org', 'UTF8')), 'hex')], now()
                FROM generate_series(\(start), \(end)) AS n,
                    LATERAL (SELECT (ARRAY[\(first)])[1 + n % \(Self.firstNames.count)] AS f) AS fn,
                    LATERAL (SELECT (ARRAY[\(last)])[1 + (n / \(Self.firstNames.count)) % \(Self.lastNames.count)] AS l) AS ln
                ON CONFLICT (user_id) DO NOTHING
                """
            try await client.fetch(PostgresQuery(unsafeSQL: sql), logger: SocialBench.logger)
        }
        try await client.fetch("ANALYZE social.people", logger: SocialBench.logger)
        // The name lexicon the people triggers filled: without statistics the planner guesses
        // its sizes, and the first run after a seed pays for it.
        try await client.fetch("ANALYZE social.name_words", logger: SocialBench.logger)
        try await client.fetch("ANALYZE social.name_lexicon", logger: SocialBench.logger)
        print(String(format: "seeded %d directory entries in %.1f s", users, OpenLoop.ms(ContinuousClock.now - started) / 1000))
    }

    /// Users 1...`launchers` each with `friends` friends (the next users by number, both sides
    /// written) and `favourites` wish-list items from the catalogue.
    func launchers(_ launchers: Int, friends: Int, favourites: Int) async throws {
        let started = ContinuousClock.now
        let sql = """
            WITH pairs AS (
                SELECT ('5bbe0000-0000-4000-8000-' || lpad(to_hex(n), 12, '0'))::uuid AS a,
                       ('5bbe0000-0000-4000-8000-' || lpad(to_hex(1 + (n + k - 1) % \(users)), 12, '0'))::uuid AS b,
                       now() - make_interval(mins => k) AS since
                FROM generate_series(1, \(launchers)) AS n, generate_series(1, \(friends)) AS k
            )
            INSERT INTO social.friendships (user_id, friend_id, since)
            SELECT a, b, since FROM pairs UNION ALL SELECT b, a, since FROM pairs
            ON CONFLICT DO NOTHING
            """
        try await client.fetch(PostgresQuery(unsafeSQL: sql), logger: SocialBench.logger)
        let wishes = """
            INSERT INTO social.favourites (id, user_id, item_id, note, title, image_url, price_amount, currency, added_at)
            SELECT gen_random_uuid(), ('5bbe0000-0000-4000-8000-' || lpad(to_hex(n), 12, '0'))::uuid, c.id::text,
                NULL, c.title, c.image_url, c.price_amount, c.currency, now() - make_interval(mins => k)
            FROM generate_series(1, \(launchers)) AS n CROSS JOIN generate_series(1, \(favourites)) AS k
            JOIN social.catalog_items c ON c.number = 1 + ((n * 37 + k * 101) % 20000)
            ON CONFLICT DO NOTHING
            """
        try await client.fetch(PostgresQuery(unsafeSQL: wishes), logger: SocialBench.logger)
        try await client.fetch("ANALYZE social.friendships", logger: SocialBench.logger)
        try await client.fetch("ANALYZE social.favourites", logger: SocialBench.logger)
        print(
            String(
                format: "seeded %d launch users (%d friends, %d favourites each) in %.1f s", launchers, friends,
                favourites, OpenLoop.ms(ContinuousClock.now - started) / 1000))
    }

    func count(_ sql: PostgresQuery) async throws -> Int {
        let rows = try await client.fetch(sql, logger: SocialBench.logger)
        for try await count in rows.decode(Int64.self) { return Int(count) }
        return 0
    }
}
