import Contract

/// A language PostcardBuddy's greetings are written in: English, and Swedish and Afrikaans for
/// the seed markets.
///
/// Which one a request gets is HTTP content negotiation, done where the request arrives (the
/// gateway, which also answers `Content-Language`): ``choose(lang:acceptLanguage:)``.
public enum GreetingLanguage: String, Codable, Sendable, CaseIterable {
    case en, sv, af

    /// The language when nothing else decides.
    public static let fallback = GreetingLanguage.en

    /// The language of a request: `lang` when given (one of the cases, else `invalid_argument`
    /// naming `lang`); otherwise the best of `Accept-Language` (RFC 9110 §12.5.4: the highest
    /// q-value wins, the earlier of equal ones; a range matches when it or a prefix of it up to a
    /// `-` names a case, RFC 4647 §3.4; `*` is the fallback; `q=0` never picks); otherwise the
    /// fallback. A malformed header entry is skipped, never an error.
    public static func choose(lang: String?, acceptLanguage: String?) throws(ServiceError) -> GreetingLanguage {
        if let lang {
            guard let language = GreetingLanguage(rawValue: lang.lowercased()) else {
                throw ServiceError.invalidArgument(
                    "lang is one of \(allCases.map(\.rawValue).joined(separator: ", "))", field: "lang")
            }
            return language
        }
        guard let acceptLanguage else { return fallback }
        return best(of: acceptLanguage) ?? fallback
    }

    /// The language `Accept-Language` prefers among the cases, or nil when it names none.
    public static func best(of acceptLanguage: String) -> GreetingLanguage? {
        var chosen: (language: GreetingLanguage, q: Int)?
        for entry in acceptLanguage.split(separator: ",").prefix(50) {
            let parts = entry.split(separator: ";")
            guard let range = parts.first?.trimmingOptionalWhitespace().lowercased(), !range.isEmpty else { continue }
            var q = 1000
            var valid = true
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingOptionalWhitespace() }
                guard pair.count == 2, pair[0].lowercased() == "q", let weight = thousandths(pair[1]) else {
                    valid = false
                    break
                }
                q = weight
            }
            guard valid, q > 0, let language = match(range) else { continue }
            if chosen == nil || q > chosen!.q { chosen = (language, q) }
        }
        return chosen?.language
    }

    /// The case a language range names, truncating subtags (`sv-SE` → `sv`); `*` the fallback.
    static func match(_ range: String) -> GreetingLanguage? {
        if range == "*" { return fallback }
        var tag = Substring(range)
        while true {
            if let language = GreetingLanguage(rawValue: String(tag)) { return language }
            guard let dash = tag.lastIndex(of: "-") else { return nil }
            tag = tag[..<dash]
        }
    }

    /// A q-value (`0`, `0.5`, `1.000`: at most three decimals, at most 1) in thousandths.
    static func thousandths(_ text: String) -> Int? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, whole == "0" || whole == "1" else { return nil }
        var value = whole == "1" ? 1000 : 0
        if parts.count == 2 {
            let decimals = parts[1]
            guard decimals.count <= 3, decimals.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            let padded = decimals + String(repeating: "0", count: 3 - decimals.count)
            value += Int(padded) ?? 0
        }
        return value <= 1000 ? value : nil
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (HTTP's optional white space).
    fileprivate func trimmingOptionalWhitespace() -> String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
