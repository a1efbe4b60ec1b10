import AsyncHTTPClient
import Contract
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// Reads pages of an Open States API v3 feed: the API key in `X-API-KEY` (never logged), a 429
/// waited out (its `Retry-After`, else a doubling back-off) and tried again, a failed request
/// (transport error, 5xx, a body that is not the expected JSON) tried again up to
/// ``FeedSettings/maxAttempts`` times, then thrown. Nothing here touches the database.
public struct FeedClient: Sendable {
    let http: HTTPClient
    let settings: FeedSettings
    let logger: Logger
    /// How the client waits between tries (tests pass one that records and returns at once).
    let sleep: @Sendable (Duration) async throws -> Void

    public init(
        http: HTTPClient, settings: FeedSettings, logger: Logger,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.http = http
        self.settings = settings
        self.logger = logger
        self.sleep = sleep
    }

    /// What reading a page took besides the answer.
    public struct Tries: Sendable, Equatable {
        public var throttled = 0
        public var retries = 0
        public init() {}
    }

    /// The feed's page `page` of `path` (`bills`, `people`, `events`) with `query`.
    public func page<Item: Decodable & Sendable>(
        _ path: String, query: [(String, String)], page: Int, as item: Item.Type, tries: inout Tries
    ) async throws -> OpenStates.Page<Item> {
        var components = URLComponents(string: settings.baseURL)
        let basePath = components?.path ?? ""
        components?.path = basePath.trimmingSuffix("/") + "/" + path
        components?.queryItems =
            (query + [("page", "\(page)"), ("per_page", "\(settings.perPage)")]).map { URLQueryItem(name: $0.0, value: $0.1) }
        guard let url = components?.url?.absoluteString else {
            throw ServiceError(.internal, "CIVIC_FEED_URL does not make a URL with \(path)")
        }
        var attempt = 0
        var throttles = 0
        while true {
            attempt += 1
            var request = HTTPClientRequest(url: url)
            request.headers.add(name: "Accept", value: "application/json")
            if let key = settings.apiKey { request.headers.add(name: "X-API-KEY", value: key) }
            let failure: String
            do {
                let response = try await http.execute(request, timeout: .seconds(Int64(settings.timeoutSeconds)))
                let body = try await response.body.collect(upTo: 64 << 20)
                if response.status == .tooManyRequests {
                    throttles += 1
                    tries.throttled += 1
                    guard throttles <= settings.maxThrottles else {
                        throw ServiceError(.unavailable, "the feed throttled \(path) page \(page) \(throttles) times")
                    }
                    let wait = response.headers.first(name: "Retry-After").flatMap(Int.init).map { Duration.seconds($0) }
                        ?? backoff(throttles)
                    logger.notice(
                        "feed throttled", metadata: ["path": "\(path)", "page": "\(page)", "waitMs": "\(wait.milliseconds)"])
                    try await sleep(wait)
                    attempt -= 1
                    continue
                }
                if response.status == .ok {
                    do {
                        return try OpenStates.makeDecoder().decode(OpenStates.Page<Item>.self, from: body)
                    } catch {
                        failure = "a body that is not an Open States page"
                    }
                } else {
                    failure = "HTTP \(response.status.code)"
                }
            } catch let error as ServiceError {
                throw error
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                failure = "\(type(of: error))"
            }
            guard attempt < settings.maxAttempts else {
                throw ServiceError(
                    .unavailable, "the feed answered \(path) page \(page) with \(failure) \(attempt) times")
            }
            tries.retries += 1
            logger.warning(
                "feed page failed; trying again",
                metadata: ["path": "\(path)", "page": "\(page)", "failure": "\(failure)", "attempt": "\(attempt)"])
            try await sleep(backoff(attempt))
        }
    }

    /// 0.5 s doubling per try, at most 30 s.
    func backoff(_ attempt: Int) -> Duration {
        .milliseconds(min(30_000, 500 << min(attempt - 1, 10)))
    }
}

extension Duration {
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
