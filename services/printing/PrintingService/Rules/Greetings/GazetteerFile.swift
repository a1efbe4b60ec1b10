/// The gazetteer file `deploy/scripts/gazetteer.sh` writes: a `# backplane-gazetteer 1 ...`
/// header, then one place a line, `geonameid TAB name TAB country TAB latitude TAB longitude TAB
/// population`.
public enum GazetteerFile {
    /// Why a file cannot be read as a gazetteer, with the line at fault.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        public let line: Int
        public let message: String
        public var description: String { "line \(line): \(message)" }
    }

    /// The header the first line starts with.
    public static let header = "# backplane-gazetteer 1 "

    /// The places of `text`; a ``Problem`` for a missing header, a malformed line or no place at all.
    public static func parse(_ text: String) throws(Problem) -> [PlaceIndex.Place] {
        var places: [PlaceIndex.Place] = []
        places.reserveCapacity(40_000)
        var number = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            if number == 1 {
                guard line.hasPrefix(header) else {
                    throw Problem(line: 1, message: "not a gazetteer file (it does not start with '\(header)')")
                }
                continue
            }
            if line.isEmpty { continue }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 6, let id = Int(fields[0]), !fields[1].isEmpty, fields[2].count == 2,
                let latitude = Double(fields[3]), let longitude = Double(fields[4]), let population = Int(fields[5]),
                (-90...90).contains(latitude), (-180...180).contains(longitude)
            else {
                throw Problem(line: number, message: "expected id, name, country, latitude, longitude, population")
            }
            places.append(
                PlaceIndex.Place(
                    geonameId: id, name: String(fields[1]), countryCode: String(fields[2]), latitude: latitude,
                    longitude: longitude, population: population))
        }
        guard !places.isEmpty else { throw Problem(line: number, message: "the file lists no place") }
        return places
    }
}
