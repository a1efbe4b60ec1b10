import Testing

@testable import GatewayService

/// How the access log writes a request's duration.
@Suite("gateway: access log")
struct AccessLogTests {
    @Test("durations are milliseconds with two decimals, rounded down, never negative")
    func milliseconds() {
        typealias Middleware = RequestIDMiddleware<GatewayRequestContext>
        #expect(Middleware.milliseconds(.zero) == "0.00")
        #expect(Middleware.milliseconds(.microseconds(70)) == "0.07")
        #expect(Middleware.milliseconds(.microseconds(12_509)) == "12.50")
        #expect(Middleware.milliseconds(.milliseconds(1_005)) == "1005.00")
        #expect(Middleware.milliseconds(.seconds(2) + .microseconds(30)) == "2000.03")
        #expect(Middleware.milliseconds(.microseconds(-5)) == "0.00")
    }
}
