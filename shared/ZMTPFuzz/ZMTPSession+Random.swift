import ServiceKit
import ZeroMQ

extension ZMTPSession {
    /// A random valid session: a greeting (3.0 or 3.1, sometimes with filler), READY from a
    /// DEALER, REQ or ROUTER peer with or without an identity and with other properties in any
    /// order, then up to `units` messages (1 to 4 frames, mostly small, some across the 255/256
    /// short/long boundary), PINGs and commands a ROUTER ignores. No message exceeds
    /// `maxMessageSize`.
    public static func random(units: Int = 6, maxMessageSize: Int = 512, using random: inout SeededRandom)
        -> ZMTPSession
    {
        var session = ZMTPSession()
        session.greeting(
            minor: UInt8(random.below(2)), asServer: random.coin(),
            filler: random.coin() ? [] : random.bytes(random.int(0...31)))
        var properties = [(name: "Socket-Type", value: Array(random.pick(["DEALER", "REQ", "ROUTER"]).utf8))]
        if random.coin() {
            let length = random.oneIn(20) ? 255 : random.int(0...24)
            properties.append((name: "Identity", value: random.bytes(length)))
        }
        for _ in 0..<random.int(0...2) {
            let name = random.pick(["Resource", "User-Id", "X-" + random.letters(random.int(1...8))])
            properties.append((name: name, value: random.bytes(random.int(0...12))))
        }
        if properties.count > 1 { properties.swapAt(0, random.below(properties.count)) }
        session.ready(properties, longHeader: random.oneIn(10))
        for _ in 0..<random.int(0...units) {
            switch random.below(10) {
            case 0:
                session.ping(ttl: UInt16(truncatingIfNeeded: random.next()), context: random.bytes(random.int(0...16)))
            case 1:
                let name = random.pick(["PONG", "SUBSCRIBE", "CANCEL", random.letters(random.int(1...9))])
                session.command(name, data: random.bytes(random.int(0...8)), longHeader: random.oneIn(10))
            default:
                var budget = maxMessageSize
                var frames: [[UInt8]] = []
                for _ in 0..<random.int(1...4) {
                    let size = min(budget, frameSize(using: &random))
                    frames.append(random.bytes(size))
                    budget -= size
                }
                session.message(frames, longHeaders: random.oneIn(20))
            }
        }
        return session
    }

    /// Mostly small, now and then either side of the short/long boundary.
    private static func frameSize(using random: inout SeededRandom) -> Int {
        switch random.below(100) {
        case 0..<70: random.int(0...16)
        case 70..<92: random.int(17...64)
        case 92..<96: random.pick([255, 256])
        default: random.int(200...300)
        }
    }
}
