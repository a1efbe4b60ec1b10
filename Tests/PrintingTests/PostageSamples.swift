import Foundation
import PrintingService

/// The shipped sample postage file and variations of it, for tests.
enum PostageSamples {
    static let schema: [UInt8] = Array(try! Data(contentsOf: try! PrintingService.postageSchemaURL()))
    static let sample: String = try! String(contentsOf: try! PrintingService.samplePostageURL(), encoding: .utf8)

    /// The sample with `old` replaced by `new` (which must occur).
    static func sample(replacing old: String, with new: String) -> String {
        precondition(sample.contains(old), "the sample has no \(old)")
        return sample.replacingOccurrences(of: old, with: new)
    }

    /// The sample valid from `from` (and until `to`), with its own label so that its bytes differ.
    static func sample(label: String, from: String, to: String? = nil) -> String {
        sample(replacing: #"<postage version="2026-demo-1">"#, with: #"<postage version="\#(label)">"#)
            .replacingOccurrences(
                of: "<validFrom>2026-01-01</validFrom>",
                with: "<validFrom>\(from)</validFrom>" + (to.map { "\n  <validTo>\($0)</validTo>" } ?? ""))
    }

    /// The 1-based line of `text` in `document` that contains `marker`.
    static func line(of marker: String, in document: String) -> Int {
        let lines = document.split(separator: "\n", omittingEmptySubsequences: false)
        return (lines.firstIndex { $0.contains(marker) } ?? -1) + 1
    }
}
