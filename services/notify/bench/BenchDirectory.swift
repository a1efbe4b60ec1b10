import AuthContract
import Contract
import Foundation
import NotifyService

/// The contacts of the benchmark's made-up users, kept in memory in place of auth (the
/// benchmark measures notify's delivery, not auth's lookups).
struct BenchDirectory: Directory {
    let contacts: [UUID: Auth.Contact]

    func contacts(of userIds: [UUID]) async throws -> [UUID: Auth.Contact] {
        var found: [UUID: Auth.Contact] = [:]
        for id in userIds { found[id] = contacts[id] }
        return found
    }

    func forget(token: String) async throws {}

    /// `count` users with one `android` device each, token `ok-<n>`.
    static func androidUsers(_ count: Int) -> BenchDirectory {
        var contacts: [UUID: Auth.Contact] = [:]
        for index in 0..<count {
            let id = UUID()
            let user = id.uuidString.lowercased()
            let device = Auth.Device(
                deviceId: UUID().uuidString.lowercased(), userId: user, token: "ok-\(index)", platform: "android",
                osVersion: "14", app: "tapwater")
            contacts[id] = Auth.Contact(
                userId: user, username: "user\(index)", email: nil, displayName: nil, devices: [device])
        }
        return BenchDirectory(contacts: contacts)
    }
}
