import CivicContract
import Contract
import Foundation

/// `lookup`'s payload, read strictly and refused without a word of it. The body comes from the
/// client as it was sent (a pass-through route), and a refusal's message goes back to the client
/// and into civic's log: so a refusal names only the member and the rule
/// (`lat: a number from -90 to 90 is required`), never a value, a key the client made up, or a
/// piece of the text, for a body that is not JSON, too large, not an object, has a member other
/// than `lat` and `lon`, lacks one, or holds something other than a number in range.
public enum LookupBody {
    /// The largest payload read: `{"lat": …, "lon": …}` needs under 100 bytes.
    public static let maxBytes = 1024

    /// The request in `bytes`, or the `invalid_argument` that says what is wrong.
    public static func decode(_ bytes: [UInt8]) throws(ServiceError) -> Civic.Lookup.Request {
        guard bytes.count <= maxBytes else {
            throw ServiceError.invalidArgument(
                "the body is at most \(maxBytes) bytes: {\"lat\": <number>, \"lon\": <number>}", field: "body")
        }
        let point: Point
        do {
            point = try JSONDecoder().decode(Point.self, from: Data(bytes))
        } catch let refusal as Refusal {
            throw refusal.error
        } catch {
            throw ServiceError.invalidArgument(
                "the body is not JSON: send {\"lat\": <number>, \"lon\": <number>}", field: "body")
        }
        return .init(lat: point.lat, lon: point.lon)
    }

    /// `lat`'s refusal.
    public static let badLatitude = ServiceError.invalidArgument(
        "lat: a number from -90 to 90 is required", field: "lat")
    /// `lon`'s refusal.
    public static let badLongitude = ServiceError.invalidArgument(
        "lon: a number from -180 to 180 is required", field: "lon")

    /// Whether `lat` and `lon` are a point on the globe (else the refusal of the first that is not).
    public static func check(lat: Double, lon: Double) throws(ServiceError) {
        guard lat.isFinite, (-90...90).contains(lat) else { throw badLatitude }
        guard lon.isFinite, (-180...180).contains(lon) else { throw badLongitude }
    }

    /// A refusal thrown out of the decoding, carrying our own words only.
    struct Refusal: Error {
        let error: ServiceError
    }

    /// Any member's name, to see every member the object has.
    struct Member: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The object `{lat, lon}` and nothing else.
    struct Point: Decodable {
        let lat: Double
        let lon: Double

        init(from decoder: any Decoder) throws {
            guard let object = try? decoder.container(keyedBy: Member.self) else {
                throw Refusal(
                    error: .invalidArgument(
                        "the body must be a JSON object: {\"lat\": <number>, \"lon\": <number>}", field: "body"))
            }
            guard object.allKeys.allSatisfy({ $0.stringValue == "lat" || $0.stringValue == "lon" }) else {
                throw Refusal(error: .invalidArgument("the body has members other than lat and lon", field: "body"))
            }
            func number(_ name: String, _ refusal: ServiceError) throws -> Double {
                guard let value = try? object.decode(Double.self, forKey: Member(stringValue: name)) else {
                    throw Refusal(error: refusal)
                }
                return value
            }
            lat = try number("lat", LookupBody.badLatitude)
            lon = try number("lon", LookupBody.badLongitude)
            do { try LookupBody.check(lat: lat, lon: lon) } catch { throw Refusal(error: error) }
        }
    }
}
