import Contract
import Foundation
import Logging
import Majordomo
import ServiceKit
import Testing

/// The document and the services agree: every operation the OpenAPI document routes to a
/// service (`x-backplane`) is one that service's running process registers, asked over a real
/// broker (a name no handler has is refused by the process, which this test tells apart), and
/// every operation a process registers is the document's or listed as one only services call.
@Suite("the document's operations have handlers (real processes)", .serialized)
struct DocumentOwnersTests {
    /// `(operationId, service, operation)` of every operation the document gives one worker.
    static func owned() throws -> [(String, String, String)] {
        let document = URL(filePath: #filePath).deletingLastPathComponent()
            .appending(path: "../../services/gateway/GatewayService/openapi.yaml")
        let text = try String(contentsOf: document, encoding: .utf8)
        var owned: [(String, String, String)] = []
        var operationId = ""
        let pattern = /x-backplane: \{service: ([a-z]+), operation: ([a-z_0-9]+),/
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("operationId: ") { operationId = String(trimmed.dropFirst(13)) }
            if let match = trimmed.firstMatch(of: pattern), match.1 != "gateway" {
                owned.append((operationId, String(match.1), String(match.2)))
            }
        }
        return owned
    }

    @Test("each operation the document names is registered by its owner")
    func everyOperationHasAHandler() async throws {
        let owned = try Self.owned()
        #expect(owned.count > 150)
        let services = Set(owned.map(\.1))
        let system = try SystemHarness()
        try system.start("broker")
        for service in services.sorted() {
            try system.start(
                service, extra: service == "notify" ? ["SMTP_HOST": "none"] : [:])
        }
        defer { _ = system.stopBlocking() }
        var logger = Logger(label: "document-owners")
        logger.logLevel = .error
        let brokerURL = try #require(system.environment["BROKER_URL"])
        let client = try #require(MajordomoClient(endpoint: brokerURL, logger: logger))
        let running = Task { try await client.run() }
        defer {
            client.stop()
            running.cancel()
        }
        let bus = BusClient(client: client, defaultTimeout: .seconds(30))
        let deadline = Date().addingTimeInterval(120)
        for service in services.sorted() {
            while (try? await bus.isServed(service)) != true {
                guard Date() < deadline else { Issue.record("\(service) did not start: \(system.logs())"); return }
                try await Task.sleep(for: .milliseconds(250))
            }
        }
        for (operationId, service, operation) in owned {
            // A payload no operation accepts: an owner that has the operation refuses it by its
            // rules; one that has not names the operations it has instead.
            do {
                _ = try await bus.call(
                    operation, on: ServiceName(service), payloadJSON: Array(#"{"":0}"#.utf8),
                    metadata: RequestMetadata(requestId: "document-owners"))
            } catch {
                #expect(error.details?["operations"] == nil, "\(operationId): \(service) has no \(operation)")
            }
        }

        // The other way round: every operation a service registers is one the document routes
        // to, or one that only services and the gateway's exceptions call, listed below.
        let named = try Self.namedOperations()
        for service in services.sorted() {
            do {
                _ = try await bus.call(
                    "no_such_operation", on: ServiceName(service), payloadJSON: Array("{}".utf8),
                    metadata: RequestMetadata(requestId: "document-owners"))
                Issue.record("\(service) answered an operation it does not have")
            } catch {
                guard case .array(let names)? = error.details?["operations"] else {
                    Issue.record("\(service) did not list its operations: \(error)")
                    continue
                }
                let registered = Set(names.compactMap { name -> String? in
                    if case .string(let text) = name { text } else { nil }
                })
                let unnamed = registered.subtracting(named)
                let listed = Self.internalOperations[service] ?? []
                #expect(
                    unnamed == listed,
                    "\(service): not in the document and not listed as internal: \(unnamed.subtracting(listed).sorted()); listed but not registered or in the document: \(listed.subtracting(unnamed).sorted())")
            }
        }
    }

    /// Every bus operation an `x-backplane` extension names, whoever owns it.
    static func namedOperations() throws -> Set<String> {
        let document = URL(filePath: #filePath).deletingLastPathComponent()
            .appending(path: "../../services/gateway/GatewayService/openapi.yaml")
        let text = try String(contentsOf: document, encoding: .utf8)
        return Set(text.matches(of: /x-backplane: \{service: [^,]+, operation: ([a-z_0-9]+)/).map { String($0.1) })
    }

    /// The operations services register for other services and the gateway, by owner (`health`,
    /// the gateway's readiness check, on every one): no app calls them directly.
    static let internalOperations: [String: Set<String>] = [
        "auth": ["health", "verify_password", "lookup_contacts", "forget_device_token", "ensure_admin"],
        "civic": ["health"],
        "hydration": ["health", "reminder_text"],
        "notify": ["health", "send", "list_deliveries"],
        "orders": ["health", "image_in_orders"],
        "printing": ["health", "postage_rates"],
        "routing": ["health"],
        "social": ["health", "check_gift", "resolve_contacts"],
    ]
}
