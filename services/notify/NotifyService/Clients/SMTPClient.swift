import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL

/// An SMTP client on SwiftNIO: EHLO, STARTTLS when offered or required, AUTH PLAIN or LOGIN,
/// then any number of messages over one connection.
public struct SMTPClient: Sendable {
    /// Where to send.
    public let settings: SMTPSettings
    let group: any EventLoopGroup
    let logger: Logger

    /// A client on NIO's shared event loops.
    public init(
        settings: SMTPSettings, logger: Logger, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.settings = settings
        self.logger = logger
        self.group = group
    }

    /// Opens a session (connected, greeted, upgraded, authenticated), runs `body` with it, then
    /// says QUIT and closes.
    public func withSession<T: Sendable>(_ body: (SMTPSession) async throws -> T) async throws -> T {
        let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            channel = try await ClientBootstrap(group: group)
                .connectTimeout(.seconds(10))
                .connect(host: settings.host, port: settings.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(SMTPLineDecoder()))
                        return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw SMTPError(code: 0, message: "cannot connect to \(settings.host):\(settings.port): \(error)")
        }
        return try await channel.executeThenClose { inbound, outbound in
            let session = SMTPSession(
                channel: channel.channel, lines: inbound.makeAsyncIterator(), outbound: outbound, settings: settings)
            try await session.open()
            let result = try await body(session)
            try? await session.quit()
            return result
        }
    }

    /// Sends one message on a session of its own.
    public func send(_ message: MailMessage) async throws {
        try await withSession { try await $0.send(message) }
    }
}

/// One connected SMTP conversation; used by one task at a time.
public final class SMTPSession {
    let channel: any Channel
    var lines: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    let settings: SMTPSettings
    /// The EHLO keywords the server announced (upper case), e.g. `STARTTLS`, `AUTH PLAIN LOGIN`.
    public private(set) var extensions: [String] = []
    /// Whether the connection is encrypted.
    public private(set) var secure = false

    init(
        channel: any Channel, lines: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator,
        outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, settings: SMTPSettings
    ) {
        self.channel = channel
        self.lines = lines
        self.outbound = outbound
        self.settings = settings
    }

    /// A reply: its code and its lines' texts.
    struct Reply {
        var code: Int
        var lines: [String]
    }

    func readReply() async throws -> Reply {
        let channel = self.channel
        let timer = channel.eventLoop.scheduleTask(in: .seconds(settings.replyTimeout)) { channel.close(promise: nil) }
        defer { timer.cancel() }
        var texts: [String] = []
        while true {
            guard let buffer = try await lines.next() else {
                throw SMTPError(code: 0, message: "the server closed the connection")
            }
            let line = String(buffer: buffer)
            guard line.count >= 3, let code = Int(line.prefix(3)) else {
                throw SMTPError(code: 0, message: "malformed reply '\(line.prefix(80))'")
            }
            texts.append(String(line.dropFirst(4)))
            if line.count == 3 || line[line.index(line.startIndex, offsetBy: 3)] == " " {
                return Reply(code: code, lines: texts)
            }
        }
    }

    func write(_ text: String) async throws {
        try await outbound.write(ByteBuffer(string: text))
    }

    /// Sends `command` and expects a reply code in `expected`.
    @discardableResult
    func command(_ command: String, expect expected: ClosedRange<Int>, shown: String? = nil) async throws -> Reply {
        try await write(command + "\r\n")
        let reply = try await readReply()
        guard expected.contains(reply.code) else {
            throw SMTPError(
                code: reply.code, message: "\(shown ?? command) refused: \(reply.lines.joined(separator: " "))")
        }
        return reply
    }

    func hello() async throws {
        let reply = try await command("EHLO \(settings.heloName)", expect: 250...250)
        extensions = reply.lines.dropFirst().map { $0.uppercased() }
    }

    func open() async throws {
        let greeting = try await readReply()
        guard greeting.code == 220 else {
            throw SMTPError(code: greeting.code, message: "greeting: \(greeting.lines.joined(separator: " "))")
        }
        try await hello()
        let offered = extensions.contains("STARTTLS")
        if settings.startTLS == .required && !offered {
            throw SMTPError(code: 0, message: "the server does not offer STARTTLS and SMTP_STARTTLS=required")
        }
        if offered && settings.startTLS != .off {
            try await command("STARTTLS", expect: 220...220)
            let context = try NIOSSLContext(configuration: settings.tls)
            let hostname = settings.host.first?.isNumber == true || settings.host.contains(":") ? nil : settings.host
            let channel = self.channel
            try await channel.eventLoop.submit {
                let handler = try NIOSSLClientHandler(context: context, serverHostname: hostname)
                try channel.pipeline.syncOperations.addHandler(handler, position: .first)
            }.get()
            secure = true
            try await hello()
        }
        if let username = settings.username, let password = settings.password {
            try await authenticate(username: username, password: password)
        }
    }

    func authenticate(username: String, password: String) async throws {
        let mechanisms =
            extensions.first { $0.hasPrefix("AUTH ") || $0.hasPrefix("AUTH=") }?
            .dropFirst(5).split(separator: " ").map(String.init) ?? []
        if mechanisms.contains("PLAIN") || mechanisms.isEmpty {
            let token = Data(([0] + Array(username.utf8) + [0] + Array(password.utf8))).base64EncodedString()
            try await command("AUTH PLAIN \(token)", expect: 235...235, shown: "AUTH PLAIN")
        } else if mechanisms.contains("LOGIN") {
            try await command("AUTH LOGIN", expect: 334...334)
            try await command(Data(username.utf8).base64EncodedString(), expect: 334...334, shown: "AUTH LOGIN user")
            try await command(Data(password.utf8).base64EncodedString(), expect: 235...235, shown: "AUTH LOGIN")
        } else {
            throw SMTPError(code: 0, message: "no AUTH mechanism in common (server offers \(mechanisms))")
        }
    }

    /// Sends one message: MAIL FROM, RCPT TO, DATA (dot-stuffed). A refusal of the message leaves
    /// the session usable for the next one. `beforeContent` runs alongside the envelope commands
    /// and must finish before the content goes out: the relay cannot have the message before then.
    public func send(
        _ message: MailMessage, beforeContent: @escaping @Sendable () async throws -> Void = {}
    ) async throws {
        do {
            async let ready: Void = beforeContent()
            try await command("MAIL FROM:<\(message.from)>", expect: 250...250)
            try await command("RCPT TO:<\(message.to)>", expect: 250...251)
            try await command("DATA", expect: 354...354)
            try await ready
            try await write(MailMessage.dotStuffed(message.rendered()) + ".\r\n")
            let reply = try await readReply()
            guard reply.code == 250 else {
                throw SMTPError(code: reply.code, message: "message refused: \(reply.lines.joined(separator: " "))")
            }
        } catch let error as SMTPError where error.code != 0 {
            _ = try? await command("RSET", expect: 250...250)
            throw error
        }
    }

    func quit() async throws {
        try await command("QUIT", expect: 221...221)
    }
}
