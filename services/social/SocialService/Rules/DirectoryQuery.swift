import Contract
import Foundation

/// What a directory search looks for, decided from the text alone: an exact e-mail address or
/// phone number (by digest), or a name. Text with an `@` that is not a whole address finds
/// nothing, so the directory cannot be asked for addresses that start with something.
public enum DirectoryQuery: Sendable, Equatable {
    case email(digest: String)
    case phone(digest: String)
    /// Lower case, trimmed; `likePrefix` is it with LIKE's wildcards escaped.
    case name(text: String, likePrefix: String)
    case nothing

    /// The longest search text, in Unicode scalars (as JSON Schema counts `maxLength`).
    public static let maxLength = 100

    /// The shortest name text that also finds similar names (typos), in characters. Shorter text
    /// finds names that start with it, or have a word that does, only: three letters or fewer
    /// have too few trigrams for a similarity to mean anything, and would score most of the
    /// directory.
    public static let similarityMinimum = 4

    /// Whether this is a name search that also finds similar names (see ``similarityMinimum``).
    public var matchesSimilarNames: Bool {
        guard case .name(let text, _) = self else { return false }
        return text.count >= Self.similarityMinimum
    }

    /// How close (trigram similarity, 0 to 1) a word of a name must be to a word of the text for
    /// a typo match: "lindqvvist" is 0.75 from "lindqvist", "anika" 0.63 from "annika", while
    /// "lundqvist" (0.4) and "lind" (0.33) are other names.
    public static let wordSimilarityMinimum = 0.45

    /// How many of the lexicon's words, the closest first, each word of the text may stand for.
    public static let similarWordsPerWord = 8

    /// The words of a name search, split as `social.name_words` splits names (at ASCII spaces
    /// and punctuation); empty for other searches. Only their number is used here: the database
    /// splits (and removes accents) itself.
    public var words: [Substring] {
        guard case .name(let text, _) = self else { return [] }
        return text.split { $0.isASCII && ($0.isWhitespace || $0.isPunctuation || $0.isSymbol) }
    }

    public init(_ q: String) throws(ServiceError) {
        let text = q.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...Self.maxLength).contains(text.unicodeScalars.count) else {
            throw .invalidArgument("q is 1 to \(Self.maxLength) characters", field: "q")
        }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidArgument("q must not contain control characters", field: "q")
        }
        if DirectoryEntry.looksLikeEmail(text) {
            self = .email(digest: DirectoryEntry.emailDigest(text))
        } else if DirectoryEntry.looksLikePhone(text) {
            self = .phone(digest: DirectoryEntry.phoneDigest(text))
        } else if text.contains("@") {
            self = .nothing
        } else {
            let lower = text.lowercased()
            var escaped = ""
            for character in lower {
                if character == "\\" || character == "%" || character == "_" { escaped.append("\\") }
                escaped.append(character)
            }
            self = .name(text: lower, likePrefix: escaped)
        }
    }
}
