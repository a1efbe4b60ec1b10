import Majordomo
import ZeroMQ

/// The broker's rules with their output as plain messages, identity first.
extension BrokerCore {
    mutating func handle(_ message: Message, now: Int64, into out: inout [Message]) {
        plain(into: &out) { $0.handle(message, now: now, into: &$1) }
    }

    mutating func tick(now: Int64, into out: inout [Message]) {
        plain(into: &out) { $0.tick(now: now, into: &$1) }
    }

    mutating func workerUnreachable(_ identity: Frame, undelivered: Message, now: Int64, into out: inout [Message]) {
        plain(into: &out) { $0.workerUnreachable(identity, undelivered: undelivered, now: now, into: &$1) }
    }

    private mutating func plain(into out: inout [Message], _ step: (inout BrokerCore, inout [Outgoing]) -> Void) {
        var produced: [Outgoing] = []
        step(&self, &produced)
        out += produced.map(\.frames)
    }
}

extension Outgoing {
    /// All its frames as bytes.
    var frames: Message { head + body.frames }
}
