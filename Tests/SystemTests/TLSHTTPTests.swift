import Foundation
import Testing

/// The gateway serving HTTPS with a certificate made by the test (openssl), checked with curl:
/// TLS 1.2 and 1.3 accepted, TLS 1.1 and plain HTTP refused; half a TLS setting refused at start.
@Suite("HTTPS at the gateway (real processes)", .serialized)
struct TLSHTTPTests {
    /// Runs a tool; its exit status and standard output.
    static func run(_ tool: String, _ arguments: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    /// A self-signed certificate for 127.0.0.1 and its key, in a new folder.
    static func makeCertificate() throws -> (certificate: String, key: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let certificate = folder.appendingPathComponent("cert.pem").path
        let key = folder.appendingPathComponent("key.pem").path
        let (status, _) = try run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out",
                certificate,
            ])
        try #require(status == 0, "openssl could not make a certificate")
        return (certificate, key)
    }

    @Test("with TLS_CERT_FILE and TLS_KEY_FILE the gateway speaks HTTPS only, TLS 1.2 or later")
    func https() async throws {
        let (certificate, key) = try Self.makeCertificate()
        let system = try SystemHarness()
        defer { _ = system.stopBlocking() }
        try system.start("gateway", extra: ["TLS_CERT_FILE": certificate, "TLS_KEY_FILE": key])
        let url = "https://127.0.0.1:\(system.httpPort)/healthz"
        var answer: (Int32, String) = (1, "")
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, answer.0 != 0 {
            answer = try Self.run("/usr/bin/curl", ["-sS", "--cacert", certificate, "--max-time", "5", url])
            if answer.0 != 0 { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(answer.0 == 0 && answer.1.contains("\"ok\""), "\(answer) \(system.logs())")
        for version in ["--tlsv1.2", "--tlsv1.3"] {
            let (status, body) = try Self.run(
                "/usr/bin/curl", ["-sS", "--cacert", certificate, version, "--max-time", "5", url])
            #expect(status == 0 && body.contains("\"ok\""), "\(version): \(status)")
        }
        let (old, _) = try Self.run(
            "/usr/bin/curl", ["-sS", "--cacert", certificate, "--tlsv1.1", "--tls-max", "1.1", "--max-time", "5", url])
        #expect(old != 0, "TLS 1.1 must be refused")
        #expect(await system.get("/healthz")?.status != 200, "no plain HTTP on the TLS port")
        // The container health check speaks TLS too.
        let (probe, output) = try await system.runToEnd(
            "gateway", arguments: ["--probe"], extra: ["TLS_CERT_FILE": certificate, "TLS_KEY_FILE": key])
        #expect(probe == 0, "\(output)")
    }

    @Test("a certificate without its key, or an unreadable one, stops the gateway at start with exit 78")
    func badSettings() async throws {
        let (certificate, _) = try Self.makeCertificate()
        let system = try SystemHarness()
        let (halfStatus, halfOutput) = try await system.runToEnd(
            "gateway", arguments: [], extra: ["TLS_CERT_FILE": certificate, "TLS_KEY_FILE": ""])
        #expect(halfStatus == 78, "\(halfOutput)")
        #expect(halfOutput.contains("TLS_CERT_FILE"))
        let (missingStatus, missingOutput) = try await system.runToEnd(
            "gateway", arguments: [], extra: ["TLS_CERT_FILE": "/nonexistent.pem", "TLS_KEY_FILE": "/nonexistent.key"])
        #expect(missingStatus == 78, "\(missingOutput)")
    }
}
