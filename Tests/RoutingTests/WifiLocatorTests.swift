import Contract
import Foundation
import RoutingContract
import RoutingService
import Testing

/// Positioning from Wi-Fi scans.
@Suite("routing: Wi-Fi positioning")
struct WifiLocatorTests {
    let registry: [String: AccessPoint] = {
        var registry: [String: AccessPoint] = [:]
        for point in SampleCampus.map.accessPoints { registry[point.bssid] = point }
        return registry
    }()

    func metres(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
        let projection = LocalProjection(latitude: a.0, longitude: a.1)
        let (x, y) = projection.project(latitude: b.0, longitude: b.1)
        return (x * x + y * y).squareRoot()
    }

    @Test("a strong AP and two weak ones: the position is near the strong one, on its floor")
    func weightedCentroid() throws {
        let points = SampleCampus.map.accessPoints
        let strong = try #require(points.first { $0.name == "IT-L2-AP" })
        let weakSame = try #require(points.first { $0.name == "IT-L1-AP" })
        let weakOther = try #require(points.first { $0.name == "ENG1-L2-AP" })
        let scan = [
            Routing.ScanEntry(bssid: strong.bssid.uppercased(), rssi: -45),
            Routing.ScanEntry(bssid: weakSame.bssid, rssi: -80),
            Routing.ScanEntry(bssid: weakOther.bssid, rssi: -85),
            Routing.ScanEntry(bssid: "aa:bb:cc:dd:ee:ff", rssi: -30),
        ]
        let estimate = try #require(WifiLocator().locate(scan: scan, accessPoints: registry))
        #expect(estimate.level == 2)
        #expect(estimate.source == "wifi")
        #expect(metres((estimate.lat, estimate.lon), (strong.latitude, strong.longitude)) < 10)
        #expect(estimate.accuracy >= 3 && estimate.accuracy <= 100)
    }

    @Test("no campus access point in the scan: no estimate")
    func outside() {
        let scan = [Routing.ScanEntry(bssid: "aa:bb:cc:dd:ee:ff", rssi: -40)]
        #expect(WifiLocator().locate(scan: scan, accessPoints: registry) == nil)
        #expect(WifiLocator().locate(scan: [], accessPoints: registry) == nil)
    }

    @Test("distance grows with weaker signal")
    func pathLoss() {
        let locator = WifiLocator()
        #expect(abs(locator.distance(rssi: -40) - 1) < 0.001)
        #expect(locator.distance(rssi: -70) > locator.distance(rssi: -60))
    }
}
