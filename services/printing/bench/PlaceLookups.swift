import Foundation
import PrintingService

/// `printing-bench --places FILE`: how long printing takes to load the gazetteer and to find the
/// nearest place, at 200,000 seeded positions (half near a real place, half anywhere).
enum PlaceLookups {
    static func run(file: String) throws {
        let clock = ContinuousClock()
        var places: [PlaceIndex.Place] = []
        var index: PlaceIndex?
        let load = try clock.measure {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: file])
            }
            places = try GazetteerFile.parse(String(decoding: data, as: UTF8.self))
            index = PlaceIndex(places)
        }
        guard let index else { return }
        var state: UInt64 = 20_261_125
        func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        let positions: [(Double, Double)] = (0..<200_000).map { number in
            if number % 2 == 0 {
                let place = places[Int(next() * Double(places.count))]
                return (
                    max(-90, min(90, place.latitude + next() - 0.5)),
                    min(180, max(-180, place.longitude + next() - 0.5))
                )
            }
            return (next() * 180 - 90, next() * 360 - 180)
        }
        var nanos: [Int64] = []
        nanos.reserveCapacity(positions.count)
        var named = 0
        let total = clock.measure {
            for (lat, lon) in positions {
                let started = clock.now
                if index.nearest(latitude: lat, longitude: lon, maxDistance: 100_000) != nil { named += 1 }
                let took = started.duration(to: clock.now).components
                nanos.append(took.seconds * 1_000_000_000 + took.attoseconds / 1_000_000_000)
            }
        }
        nanos.sort()
        func micros(_ quantile: Double) -> String {
            String(format: "%.1f", Double(nanos[min(nanos.count - 1, Int(Double(nanos.count) * quantile))]) / 1000)
        }
        print(
            "gazetteer: \(places.count) places loaded and indexed in \(load); \(positions.count) lookups "
                + "(\(named) named a place within 100 km) in \(total): p50 \(micros(0.5)) µs, p99 \(micros(0.99)) µs, "
                + "max \(micros(1)) µs")
    }
}
