import Contract
import Foundation
import Logging

/// Printing's gazetteer as loaded at start: the places of `GAZETTEER_FILE`, indexed, or why
/// there are none (then suggestions answer `unavailable` saying so, and everything else works).
public enum Gazetteer: Sendable {
    case loaded(PlaceIndex)
    case missing(String)

    /// Reads and indexes the file at `path`; a missing or broken file is logged at error level
    /// once and kept as the reason.
    public static func load(path: String, logger: Logger) -> Gazetteer {
        let hint = "run deploy/scripts/gazetteer.sh (make up and make test do) or set GAZETTEER_FILE"
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = "the gazetteer file \(path) is missing: \(hint)"
            logger.error("greeting suggestions are off", metadata: ["reason": "\(reason)"])
            return .missing(reason)
        }
        do {
            let places = try GazetteerFile.parse(String(decoding: data, as: UTF8.self))
            logger.info("gazetteer loaded", metadata: ["places": "\(places.count)", "file": "\(path)"])
            return .loaded(PlaceIndex(places))
        } catch {
            let reason = "the gazetteer file \(path) is not usable (\(error)): \(hint)"
            logger.error("greeting suggestions are off", metadata: ["reason": "\(reason)"])
            return .missing(reason)
        }
    }

    /// The index, or `unavailable` with the reason.
    public func index() throws(ServiceError) -> PlaceIndex {
        switch self {
        case .loaded(let index): return index
        case .missing(let reason): throw ServiceError(.unavailable, reason)
        }
    }
}
