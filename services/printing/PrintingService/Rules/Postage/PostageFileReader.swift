import Contract
import Foundation
import PrintingContract

/// Turns a schema-valid `<postage>` tree into a ``PostageFile``, checking the rules the schema
/// leaves out; collects every problem rather than stopping at the first.
struct PostageFileReader {
    let root: XMLElement
    private var problems: [PostageProblem] = []

    init(root: XMLElement) { self.root = root }

    func read() throws(PostageFileParser.Rejection) -> PostageFile {
        var reader = self
        let file = reader.build()
        guard reader.problems.isEmpty, let file else { throw .init(problems: reader.problems) }
        return file
    }

    private mutating func build() -> PostageFile? {
        let zones = readZones()
        let prices = readPrices(zones: zones)
        let validFrom = root.child("validFrom")?.text ?? ""
        let validTo = root.child("validTo")
        if let validTo, validTo.text < validFrom {
            report(validTo, "validTo \(validTo.text) is before validFrom \(validFrom)")
        }
        let stamp = readStamp()
        guard let stamp else { return nil }
        return PostageFile(
            label: root.attribute("version") ?? "", carrier: root.child("carrier")?.text ?? "",
            currency: root.child("currency")?.text ?? "", origin: root.child("origin")?.text ?? "",
            validFrom: validFrom, validTo: validTo?.text, zones: zones.map(\.zone), prices: prices, stamp: stamp)
    }

    private mutating func readZones() -> [(zone: Printing.PostageZone, element: XMLElement)] {
        let elements = root.child("zones")?.children("zone") ?? []
        let zones: [(zone: Printing.PostageZone, element: XMLElement)] = elements.map { element in
            let isDefault = ["true", "1"].contains(element.attribute("default") ?? "false")
            let countries = element.children("country").map(\.text)
            return (
                Printing.PostageZone(id: element.attribute("id") ?? "", countries: countries, isDefault: isDefault),
                element
            )
        }
        let defaults = zones.filter { $0.zone.isDefault }
        if defaults.isEmpty, let container = root.child("zones") {
            report(container, "no zone has default=\"true\"; one zone must take every country the others do not name")
        }
        for extra in defaults.dropFirst() {
            report(extra.element, "zone '\(extra.zone.id)' is a second default zone; only one may be")
        }
        for (zone, element) in zones {
            if zone.isDefault, !zone.countries.isEmpty {
                report(element, "the default zone '\(zone.id)' lists countries; it takes every country not listed")
            }
            if !zone.isDefault, zone.countries.isEmpty {
                report(element, "zone '\(zone.id)' lists no country")
            }
        }
        return zones
    }

    private mutating func readPrices(zones: [(zone: Printing.PostageZone, element: XMLElement)])
        -> [Printing.PostagePrice]
    {
        var prices: [Printing.PostagePrice] = []
        for element in root.child("prices")?.children("price") ?? [] {
            let zone = element.attribute("zone")
            let country = element.attribute("country")
            guard (zone == nil) != (country == nil) else {
                report(element, "a price names either a zone or a country, not \(zone == nil ? "neither" : "both")")
                continue
            }
            prices.append(
                Printing.PostagePrice(
                    size: element.attribute("size") ?? "", zone: zone, country: country,
                    amount: Int64(element.attribute("amount") ?? "") ?? 0))
        }
        for (zone, element) in zones {
            let missing = PostageFile.sizes.filter { size in
                !prices.contains { $0.zone == zone.id && $0.size == size }
            }
            if !missing.isEmpty {
                report(element, "zone '\(zone.id)' has no price for \(missing.joined(separator: ", "))")
            }
        }
        return prices
    }

    private mutating func readStamp() -> StampImage? {
        guard let element = root.child("stamp") else { return nil }
        guard let data = Data(base64Encoded: element.text, options: .ignoreUnknownCharacters), !data.isEmpty else {
            report(element, "the stamp is not base64")
            return nil
        }
        switch StampImage.read([UInt8](data), mediaType: element.attribute("mediaType") ?? "") {
        case .success(let stamp): return stamp
        case .failure(let error):
            report(element, error.message)
            return nil
        }
    }

    private mutating func report(_ element: XMLElement, _ message: String) {
        problems.append(PostageProblem(line: element.line, element: element.name, message))
    }
}
