import Contract
import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Reads the ECB's `eurofxref-daily.xml`: `<Cube><Cube time='YYYY-MM-DD'><Cube currency='USD'
/// rate='1.0823'/>…`. Anything else, or a document without a date or a single usable rate, is
/// refused, so a broken file never replaces the last good rates.
public enum ECBRatesParser {
    /// Parses `data`; `invalid_argument` saying what is wrong otherwise.
    public static func parse(_ data: Data) throws(ServiceError) -> ExchangeRates {
        let delegate = Delegate()
        let parser = XMLParser(data: data)
        parser.delegate = delegate
        parser.shouldResolveExternalEntities = false
        guard parser.parse() else {
            let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "unknown error"
            throw ServiceError(.invalidArgument, "the rates are not well-formed XML: \(reason)")
        }
        if let problem = delegate.problem { throw ServiceError(.invalidArgument, problem) }
        guard let date = delegate.date else {
            throw ServiceError(.invalidArgument, "the rates have no <Cube time='YYYY-MM-DD'>")
        }
        guard !delegate.rates.isEmpty else { throw ServiceError(.invalidArgument, "the rates list no currency") }
        return ExchangeRates(date: date, rates: delegate.rates)
    }

    /// Collects the cubes; used only inside one synchronous `parse` call.
    private final class Delegate: NSObject, XMLParserDelegate {
        var date: String?
        var rates: [String: ExchangeRate] = [:]
        var problem: String?

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
            qualifiedName qName: String?, attributes: [String: String] = [:]
        ) {
            guard elementName == "Cube" || elementName.hasSuffix(":Cube") else { return }
            if let time = attributes["time"] {
                guard Self.isDate(time) else {
                    problem = "rate date '\(time)' is not YYYY-MM-DD"
                    return
                }
                if date != nil && date != time {
                    problem = "the rates hold more than one day; send a daily file"
                    return
                }
                date = time
            }
            if let currency = attributes["currency"] {
                guard CurrencyTable.isWellFormed(currency), currency != ExchangeRates.base else {
                    problem = "'\(currency)' is not an ISO 4217 currency code other than EUR"
                    return
                }
                guard let text = attributes["rate"], let rate = ExchangeRate(text) else {
                    problem = "the rate of \(currency) is not a positive decimal"
                    return
                }
                rates[currency] = rate
            }
        }

        static func isDate(_ text: String) -> Bool {
            let parts = text.split(separator: "-")
            return text.count == 10 && parts.count == 3 && parts.map(\.count) == [4, 2, 2]
                && parts.allSatisfy { $0.allSatisfy(\.isNumber) }
        }
    }
}
