import Foundation
import Hummingbird
import NIOCore
import Synchronization

/// A local server that answers like FCM HTTP v1 (200 and a message name for every send) and
/// counts what it received (`GET /count`). Runs as its own process: `notify-bench fcm-sink`.
enum FCMSink {
    static func run(port: Int) async throws {
        let received = Atomic<Int>(0)
        let router = Router()
        router.post("/v1/projects/:project/messages:send") { request, _ -> Response in
            _ = try await request.body.collect(upTo: 65536)
            let n = received.add(1, ordering: .relaxed).newValue
            return Response(
                status: .ok, body: .init(byteBuffer: ByteBuffer(string: #"{"name":"projects/p/messages/\#(n)"}"#)))
        }
        router.get("/count") { _, _ -> String in "\(received.load(ordering: .relaxed))" }
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { channel in
                // The parent reads the bound port from this line.
                FileHandle.standardOutput.write(Data("fcm-sink ready \(channel.localAddress?.port ?? 0)\n".utf8))
            })
        try await app.runService()
    }
}
