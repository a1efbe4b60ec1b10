import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import PostgresNIO
import Store
import Testing
import TestSupport

/// What deploy/scripts/fault-run.sh hands the reconciliation, from the environment:
///
/// - `ACKNOWLEDGED_FILE`: the id of every order the system answered 201, one per line
///   (`loadgen postcard|mixed --acknowledged FILE`); its presence makes this the fault run's
///   reconciliation rather than the suite's own proof on a seeded database.
/// - `DATABASE_URL`: the fault run's database.
/// - `STUCK_S`: work older than this many seconds is stuck (default 60).
/// - `ACKNOWLEDGED_DRINKS`: a file with the UUID of every drink acknowledged; each must be in
///   hydration.drinks, live, exactly once.
/// - `MAIL_DIR`: the SMTP sink's folder (one .eml per message); every e-mail notify logged as sent
///   must be there exactly once.
/// - `STRIPE_CHARGES_URL`: the Stripe stand-in's record of charges; our ledger must agree with it.
/// - `CIVIC_FEED_BILLS`: the number of bills the Open States feed serves; civic must hold that many.
enum FaultRun {
    static let environment = ProcessInfo.processInfo.environment

    static func value(_ name: String) -> String? {
        environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// True when the fault run called: the suite then reconciles its database and nothing else.
    static var isSet: Bool { value("ACKNOWLEDGED_FILE") != nil }

    static func fail(_ text: String) -> Reconciler.Failure { Reconciler.Failure(description: text) }

    static func lines(of path: String) throws -> [String] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw fail("cannot read \(path)") }
        return text.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    static func acknowledged() async throws -> Acknowledged {
        var input = Acknowledged()
        input.orders = try lines(of: value("ACKNOWLEDGED_FILE") ?? "")
        if let text = value("STUCK_S") {
            guard let seconds = Int(text), seconds >= 0, text.allSatisfy(\.isNumber) else {
                throw fail("STUCK_S must be a whole number of seconds")
            }
            input.stuckSeconds = seconds
        }
        if let path = value("ACKNOWLEDGED_DRINKS") { input.drinks = try lines(of: path) }
        if let folder = value("MAIL_DIR") { input.mails = try mailCopies(in: folder) }
        if let text = value("CIVIC_FEED_BILLS") {
            guard let bills = Int(text) else { throw fail("CIVIC_FEED_BILLS must be a number, not '\(text)'") }
            input.civicFeedBills = bills
        }
        if let url = value("STRIPE_CHARGES_URL") { input.stripeCharges = try await stripeCharges(url) }
        return input
    }

    /// How many messages of each notification id the sink holds: the id is the local part of
    /// each message's first Message-ID header.
    static func mailCopies(in folder: String) throws -> [String: Int] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw fail("MAIL_DIR \(folder) is not a folder")
        }
        let pattern = /^[^<]*<([0-9a-fA-F-]{36})@/
        var copies: [String: Int] = [:]
        let files = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".eml") {
            guard let data = FileManager.default.contents(atPath: "\(folder)/\(file)") else { continue }
            // "\r\n" is one Character in Swift: a line ends at either.
            let lines = String(decoding: data, as: UTF8.self).split { $0 == "\n" || $0 == "\r\n" }
            let header = lines.first { $0.lowercased().hasPrefix("message-id:") }
            if let header, let match = header.firstMatch(of: pattern) {
                copies[String(match.1), default: 0] += 1
            }
        }
        return copies
    }

    /// The stand-in's charges; an empty text counts as none, as a missing value does.
    static func stripeCharges(_ url: String) async throws -> [StripeCharge] {
        struct Entry: Decodable {
            let payment_intent: String?
            let backplane_key: String?
            let status: String?
            let authorized: Int?
            let captured: Int?
            let refunded: Int?
        }
        struct Entries: Decodable { let data: [Entry] }
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
        guard response.status == .ok else {
            throw fail("could not read the Stripe stand-in's charges at \(url): HTTP \(response.status.code)")
        }
        let body = try await response.body.collect(upTo: 256 << 20)
        let entries = try JSONDecoder().decode(Entries.self, from: Data(body.readableBytesView)).data
        let text = { (value: String?) in value.flatMap { $0.isEmpty ? nil : $0 } }
        return entries.map {
            StripeCharge(
                intent: text($0.payment_intent), backplaneKey: text($0.backplane_key), status: text($0.status),
                authorized: $0.authorized, captured: $0.captured, refunded: $0.refunded)
        }
    }
}

@Suite("The fault run's reconciliation", .enabled(if: FaultRun.isSet, "run by deploy/scripts/fault-run.sh"))
struct FaultRunReconciliation {
    static let logger: Logger = {
        var logger = Logger(label: "reconcile")
        logger.logLevel = .warning
        return logger
    }()

    /// Prints one line per count and fails when an order was lost, charged twice or not at all, a
    /// ledger does not add up, or work is stuck.
    @Test func nothingLostChargedTwiceOrStuck() async throws {
        let input = try await FaultRun.acknowledged()
        let tallies = try await PostgresFixture.withClient(maximumConnections: 2, logger: Self.logger) { client in
            try await Reconciler.run(input, client: client, logger: Self.logger)
        }
        print(tallies.map(\.description).joined(separator: "\n"))
        let failed = tallies.filter(\.failed).count
        if failed > 0 {
            Issue.record("reconciliation found losses, duplicates or stuck work: \(failed) checks (marked !!)")
        }
    }
}
