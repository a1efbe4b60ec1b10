import AuthContract
import AuthService
import Contract
import Foundation
import Logging
import PasswordHashing
import PostgresNIO
import ServiceKit
import Store
import TestSupport
import Testing
import ZeroMQ

/// Profile, password change, roles, devices, deletion and recovery by e-mail, against a real
/// PostgreSQL; events are read back from the event log, as notify reads them.
@Suite("auth: account management against PostgreSQL")
struct AccountTests {
    struct World: Sendable {
        let parts: AuthService.Parts
        let clock: ManualClock
        let log: EventLog
        let accounts: AccountStore
        let client: PostgresClient

        /// A new account; its id and username.
        func signUp(_ prefix: String = "a", email: String? = nil) async throws -> (UUID, String) {
            let name = "\(prefix)-\(UUID().uuidString.prefix(8))@example.org"
            let reply = try await parts.credentials.register(
                .init(username: name, password: "Lund2026x", email: email))
            return (try #require(UUID(uuidString: reply.userId)), name.lowercased())
        }

        /// The events of `topic` caused by `requestId` (the log only shows finished transactions,
        /// so this waits a little for them).
        /// The payloads of `topic` published for `requestId`, once at least `expecting` of them are
        /// visible: the log holds back events behind transactions still open elsewhere.
        func events<Payload: Decodable>(
            _ topic: String, requestId: String, as type: Payload.Type, expecting: Int = 1
        ) async throws -> [Payload] {
            for attempt in 0..<50 {
                var found: [Payload] = []
                var cursor = EventCursor.start
                while true {
                    let page = try await log.fetch(after: cursor, topics: [topic], limit: 500)
                    for event in page where event.requestId == requestId {
                        found.append(try Wire.makeDecoder().decode(Payload.self, from: event.payload))
                    }
                    guard let last = page.last else { break }
                    cursor = last.cursor
                }
                if found.count >= expecting || attempt == 49 { return found }
                try await Task.sleep(for: .milliseconds(100))
            }
            return []
        }
    }

    func withWorld(_ body: @Sendable (World) async throws -> Void) async throws {
        let context = Context()
        try await PostgresFixture.withClient(logger: AuthenticatorTests.logger) { client in
            let logger = AuthenticatorTests.logger
            let clock = ManualClock(Date())
            let log = EventLog(client: client, clock: clock, logger: logger)
            try await log.migrate()
            try await Migrator(client: client, schema: "auth", logger: logger).migrate(AuthService.migrations())
            let policy = try AuthService.passwordPolicy()
            let hasher = PasswordHasher(parameters: AuthenticatorTests.cheap, threads: 2)
            let accounts = AccountStore(client: client, logger: logger)
            let transactions = Transactions(client, logger: logger)
            var authenticator = try await CredentialHandler.make(
                store: accounts, transactions: transactions, hasher: hasher, policy: policy, lockout: LockoutPolicy(),
                clock: clock)
            let store = SessionStore(client: client, logger: logger)
            let key = try await store.signingKey(now: clock.now())
            let issuer = try await TokenIssuer.make(kid: key.kid, privateKey: key.privateKey, clock: clock)
            // Announcements go nowhere here (the pump is not running); the log is what counts.
            let publisher = EventPublisher(log: log, producer: .auth, context: context, endpoint: "tcp://127.0.0.1:1")
            authenticator.publisher = publisher
            let parts = AuthService.Parts(
                credentials: authenticator,
                sessions: SessionHandler(
                    credentials: authenticator, accounts: accounts, store: store, issuer: issuer, clock: clock),
                issuer: issuer,
                accounts: AccountHandler(
                    accounts: accounts, sessions: store, transactions: transactions, credentials: authenticator,
                    issuer: issuer, publisher: publisher, clock: clock),
                users: UserListHandler(accounts: accounts),
                devices: DeviceHandler(store: DeviceStore(client: client, logger: logger, clock: clock)),
                recovery: RecoveryHandler(
                    accounts: accounts, sessions: store, resets: RecoveryStore(client: client, logger: logger),
                    transactions: transactions, policy: policy, hasher: hasher, publisher: publisher, clock: clock))
            try await body(World(parts: parts, clock: clock, log: log, accounts: accounts, client: client))
        }
    }

    @Test("auth.profile_changed: written with the account at registration and with each profile change")
    func profileChangedEvents() async throws {
        try await withWorld { world in
            let (id, name) = try await world.signUp()
            _ = try await world.parts.accounts.updateProfile(id, .init(phone: "+46701234567", displayName: "Ann Lund"))
            _ = try await world.parts.accounts.updateProfile(id, .init())
            let rows = try await world.client.query(
                """
                SELECT payload::text FROM events.log
                WHERE topic = \(Auth.ProfileChanged.topic) AND payload->>'userId' = \(id.uuidString.lowercased())
                ORDER BY seq
                """, logger: AuthenticatorTests.logger)
            var events: [Auth.ProfileChanged] = []
            for try await text in rows.decode(String.self) {
                events.append(try Wire.makeDecoder().decode(Auth.ProfileChanged.self, from: Data(text.utf8)))
            }
            #expect(events.count == 2, "registration and the one real change; an empty change writes nothing")
            #expect(events.first?.username == name && events.first?.email == name && events.first?.displayName == nil)
            #expect(events.last?.displayName == "Ann Lund" && events.last?.phone == "+46701234567")
        }
    }

    @Test("profile: e-mail, E.164 phone and display name change; empty clears; bad values name the field")
    func profile() async throws {
        try await withWorld { world in
            let (id, name) = try await world.signUp()
            let manager = world.parts.accounts
            #expect(try await manager.profile(id).email == name, "an e-mail username is the e-mail on file")
            let changed = try await manager.updateProfile(
                id, .init(email: " New@Example.ORG ", phone: "+46701234567", displayName: "Ann Lund"))
            #expect(changed.email == "new@example.org")
            #expect(changed.phone == "+46701234567")
            #expect(changed.displayName == "Ann Lund")
            let partial = try await manager.updateProfile(id, .init(displayName: ""))
            #expect(partial.displayName == nil, "an empty string clears")
            #expect(partial.phone == "+46701234567", "fields left out stay")
            for (changes, field) in [
                (Auth.ProfileChanges(email: "not an address"), "email"),
                (Auth.ProfileChanges(phone: "0701234567"), "phone"),
                (Auth.ProfileChanges(displayName: String(repeating: "x", count: 101)), "displayName"),
            ] {
                do {
                    _ = try await manager.updateProfile(id, changes)
                    Issue.record("\(field) should have been refused")
                } catch let error as ServiceError {
                    #expect(error.code == .invalidArgument)
                    #expect(error.details?["field"] == .string(field))
                }
            }
        }
    }

    @Test("username change: the rules of registration, 409 when taken, login with the new name, the event carries it")
    func usernameChange() async throws {
        try await withWorld { world in
            let (id, old) = try await world.signUp()
            let (_, taken) = try await world.signUp("b")
            let manager = world.parts.accounts
            let fresh = "ann_\(UUID().uuidString.prefix(8).lowercased())"
            let changed = try await manager.updateProfile(id, .init(username: "  \(fresh.uppercased()) "))
            #expect(changed.username == fresh, "stored canonical: trimmed, lower case")
            #expect(changed.email == old, "other fields stay")
            let session = try await world.parts.sessions.login(.init(username: fresh, password: "Lund2026x"))
            #expect(!session.accessToken.isEmpty)
            #expect(await code { _ = try await world.parts.sessions.login(.init(username: old, password: "Lund2026x")) } == .unauthenticated)
            for (name, expected) in [
                (taken.uppercased(), ErrorCode.alreadyExists), ("ab", .invalidArgument), ("ann lund", .invalidArgument),
                ("", .invalidArgument), ("x@nowhere", .invalidArgument),
            ] {
                do {
                    _ = try await manager.updateProfile(id, .init(username: name, displayName: "Not Saved"))
                    Issue.record("username '\(name)' should have been refused")
                } catch let error as ServiceError {
                    #expect(error.code == expected, "\(name)")
                    #expect(error.details?["field"] == .string("username"))
                }
            }
            let after = try await manager.profile(id)
            #expect(after.username == fresh && after.displayName == nil, "a refused change changes nothing")
            // The same name again is no conflict with oneself.
            #expect(try await manager.updateProfile(id, .init(username: fresh)).username == fresh)
            let rows = try await world.client.query(
                """
                SELECT payload->>'username' FROM events.log
                WHERE topic = \(Auth.ProfileChanged.topic) AND payload->>'userId' = \(id.uuidString.lowercased())
                ORDER BY seq
                """, logger: AuthenticatorTests.logger)
            var names: [String] = []
            for try await name in rows.decode(String.self) { names.append(name) }
            #expect(names.first == old && names.dropFirst().allSatisfy { $0 == fresh } && names.count == 3)
        }
    }

    @Test("change password: the current one is checked, the rules apply, every other session ends")
    func changePassword() async throws {
        try await withWorld { world in
            let (id, name) = try await world.signUp()
            let sessions = world.parts.sessions
            let old = try await sessions.login(.init(username: name, password: "Lund2026x"))
            let manager = world.parts.accounts
            #expect(
                await code {
                    _ = try await manager.changePassword(
                        id, .init(currentPassword: "Wrong2026x", newPassword: "Malmo2027y"))
                } == .unauthenticated)
            #expect(
                await code {
                    _ = try await manager.changePassword(id, .init(currentPassword: "Lund2026x", newPassword: "short"))
                } == .invalidArgument)
            let fresh = try await manager.changePassword(
                id, .init(currentPassword: "Lund2026x", newPassword: "Malmo2027y"))
            #expect(
                await code { _ = try await sessions.refresh(.init(refreshToken: old.refreshToken)) } == .unauthenticated
            )
            _ = try await sessions.refresh(.init(refreshToken: fresh.refreshToken))
            #expect(
                await code { _ = try await sessions.login(.init(username: name, password: "Lund2026x")) }
                    == .unauthenticated)
            _ = try await sessions.login(.init(username: name, password: "Malmo2027y"))
        }
    }

    @Test("roles: an admin grants and revokes; unknown roles, revoking user or one's own admin are refused")
    func roles() async throws {
        try await withWorld { world in
            let (adminId, _) = try await world.signUp("admin")
            let (userId, name) = try await world.signUp("printer")
            let admin = Actor(userId: adminId.uuidString.lowercased(), roles: ["user", "admin"])
            let manager = world.parts.accounts
            let granted = try await manager.grantRoles(
                .init(userId: userId.uuidString, grant: ["printer", "rewards_manager"]), by: admin)
            #expect(granted.roles == ["user", "rewards_manager", "printer"])
            let revoked = try await manager.grantRoles(
                .init(userId: userId.uuidString, revoke: ["rewards_manager"]), by: admin)
            #expect(revoked.roles == ["user", "printer"])
            let session = try await world.parts.sessions.login(.init(username: name, password: "Lund2026x"))
            #expect(try await world.parts.issuer.verify(session.accessToken).roles == ["user", "printer"])

            #expect(
                await code {
                    _ = try await manager.grantRoles(.init(userId: userId.uuidString, grant: ["root"]), by: admin)
                }
                    == .invalidArgument)
            #expect(
                await code {
                    _ = try await manager.grantRoles(.init(userId: userId.uuidString, revoke: ["user"]), by: admin)
                }
                    == .invalidArgument)
            #expect(
                await code {
                    _ = try await manager.grantRoles(.init(userId: adminId.uuidString, revoke: ["admin"]), by: admin)
                } == .failedPrecondition)
            #expect(
                await code {
                    _ = try await manager.grantRoles(.init(userId: UUID().uuidString, grant: ["printer"]), by: admin)
                }
                    == .notFound)
        }
    }

    @Test("the admin's list of users: by username or e-mail prefix and role, oldest first, pages without repeats")
    func userList() async throws {
        try await withWorld { world in
            let tag = "ul\(UUID().uuidString.prefix(8).lowercased())"
            var made: [(UUID, String)] = []
            for _ in 0..<3 {
                made.append(try await world.signUp(tag))
                world.clock.advance(by: 1)
            }
            let other = try await world.parts.credentials.register(
                .init(
                    username: "plain-\(UUID().uuidString.prefix(8))", password: "Lund2026x",
                    email: "\(tag.uppercased())-mail@example.org"))
            let admin = Actor(userId: UUID().uuidString.lowercased(), roles: ["user", "admin"])
            _ = try await world.parts.accounts.grantRoles(
                .init(userId: made[1].0.uuidString, grant: ["printer"]), by: admin)
            _ = try await world.parts.accounts.updateProfile(made[0].0, .init(displayName: "Åsa Lund"))

            func list(_ request: Auth.ListUsers.Request) async throws -> Page<Auth.UserSummary> {
                try await world.accounts.users(try UserListQuery(request))
            }
            let all = try await list(.init(q: "  \(tag.uppercased()) "))
            #expect(all.items.map(\.userId) == made.map { $0.0.uuidString.lowercased() } + [other.userId])
            #expect(all.nextCursor == nil)
            #expect(all.items[0].displayName == "Åsa Lund" && all.items[0].username == made[0].1)
            #expect(all.items[1].roles == ["user", "printer"])
            #expect(all.items.map(\.createdAt) == all.items.map(\.createdAt).sorted())

            let printers = try await list(.init(q: tag, role: "printer"))
            #expect(printers.items.map(\.userId) == [made[1].0.uuidString.lowercased()])
            #expect(try await list(.init(q: tag, role: "civic_editor")).items.isEmpty)
            #expect(try await list(.init(q: tag + "%")).items.isEmpty, "% is a plain character")
            #expect(try await list(.init(q: String(tag.dropLast()) + "_")).items.isEmpty, "_ is a plain character")

            var seen: [String] = []
            var cursor: String?
            var pages = 0
            repeat {
                let page = try await list(.init(q: tag, cursor: cursor, limit: 3))
                seen += page.items.map(\.userId)
                cursor = page.nextCursor
                pages += 1
            } while cursor != nil && pages < 10
            #expect(pages == 2 && seen == all.items.map(\.userId))

            for (request, field) in [
                (Auth.ListUsers.Request(role: "root"), "role"), (.init(limit: 0), "limit"), (.init(limit: 201), "limit"),
                (.init(cursor: "page-2"), "cursor"), (.init(q: "a\u{0}b"), "q"),
                (.init(q: String(repeating: "a", count: 101)), "q"),
            ] {
                do throws(ServiceError) {
                    _ = try UserListQuery(request)
                    Issue.record("\(request) was accepted")
                } catch {
                    #expect(error.code == .invalidArgument && error.details?["field"] == .string(field), "\(request)")
                }
            }
        }
    }

    @Test("ADMIN_USERNAME/ADMIN_PASSWORD: created with the admin role, then updated; weak passwords refused")
    func adminAccount() async throws {
        try await withWorld { world in
            let name = "root-\(UUID().uuidString.prefix(8))"
            let authenticator = world.parts.credentials
            let id = try await AdminAccount.ensure(
                username: name, password: "Admin2026x", credentials: authenticator, logger: AuthenticatorTests.logger)
            #expect(try await world.parts.accounts.profile(id).roles == ["user", "admin"])
            let again = try await AdminAccount.ensure(
                username: name.uppercased(), password: "Admin2027y", credentials: authenticator,
                logger: AuthenticatorTests.logger)
            #expect(again == id, "the same account, updated")
            _ = try await world.parts.sessions.login(.init(username: name, password: "Admin2027y"))
            #expect(
                await code {
                    try await AdminAccount.ensure(
                        username: name, password: "password", credentials: authenticator,
                        logger: AuthenticatorTests.logger)
                } == .invalidArgument)

            // An existing account named by ADMIN_USERNAME becomes admin.
            let (userId, userName) = try await world.signUp("made-admin")
            try await AdminAccount.ensure(
                username: userName, password: "Lund2026x", credentials: authenticator,
                logger: AuthenticatorTests.logger)
            #expect(try await world.parts.accounts.profile(userId).roles == ["user", "admin"])
        }
    }

    @Test("ensure_admin: an admin caller creates an admin or promotes an account; anyone else is refused")
    func ensureAdminOperation() async throws {
        try await withWorld { world in
            var router = OperationRouter(service: .auth, logger: AuthenticatorTests.logger, clock: world.clock)
            AuthService.register(world.parts, on: &router)
            func ensure(_ username: String, _ password: String, actor: Actor?) async throws -> String {
                let frames = try Wire.encodeRequest(
                    operation: Auth.EnsureAdmin.name, metadata: RequestMetadata(requestId: "ensure-\(UUID())", actor: actor),
                    payload: Auth.EnsureAdmin.Request(username: username, password: password))
                return try Wire.decodeReply(Auth.EnsureAdmin.Reply.self, from: await router.handle(frames)).userId
            }
            let operatorActor = Actor(userId: "backplane-admin", roles: [Auth.Role.admin])
            let name = "ops-\(UUID().uuidString.prefix(8))"
            let id = try await ensure(name, "Admin2026x", actor: operatorActor)
            let session = try await world.parts.sessions.login(.init(username: name, password: "Admin2026x"))
            #expect(!session.accessToken.isEmpty)
            #expect(try await world.parts.accounts.profile(try #require(UUID(uuidString: id))).roles == ["user", "admin"])

            let (userId, userName) = try await world.signUp("promoted")
            #expect(try await ensure(userName, "Admin2027y", actor: operatorActor) == userId.uuidString.lowercased())
            #expect(try await world.parts.accounts.profile(userId).roles == ["user", "admin"])
            _ = try await world.parts.sessions.login(.init(username: userName, password: "Admin2027y"))

            let user = Actor(userId: userId.uuidString.lowercased(), roles: [Auth.Role.user])
            #expect(await code { _ = try await ensure("other-\(UUID().uuidString.prefix(8))", "Admin2026x", actor: user) } == .permissionDenied)
            #expect(await code { _ = try await ensure("nobody-\(UUID().uuidString.prefix(8))", "Admin2026x", actor: nil) } == .unauthenticated)
            #expect(await code { _ = try await ensure(name, "password", actor: operatorActor) } == .invalidArgument)
        }
    }

    @Test("devices: register, re-register updates, list, remove; another account's device is not found")
    func devices() async throws {
        try await withWorld { world in
            let (id, _) = try await world.signUp()
            let (other, _) = try await world.signUp()
            let devices = world.parts.devices
            let token = "apns-\(UUID().uuidString)"
            let first = try await devices.register(
                .init(token: token, platform: "ios", osVersion: "17.4", app: "TapWater"), userId: id)
            #expect(first.created)
            #expect(first.body.app == "tapwater")
            let second = try await devices.register(.init(token: token, platform: "ios", osVersion: "17.5"), userId: id)
            #expect(!second.created)
            #expect(second.body.deviceId == first.body.deviceId)
            #expect(try await devices.store.devices(of: id).map(\.osVersion) == ["17.5"])
            #expect(
                await code {
                    _ = try await devices.register(.init(token: "t", platform: "symbian", osVersion: "9"), userId: id)
                }
                    == .invalidArgument)
            #expect(
                await code {
                    _ = try await devices.register(.init(token: "a b", platform: "ios", osVersion: "9"), userId: id)
                }
                    == .invalidArgument)
            #expect(await code { try await devices.remove(first.body.deviceId, userId: other) } == .notFound)
            try await devices.remove(first.body.deviceId, userId: id)
            #expect(try await devices.store.devices(of: id).isEmpty)

            let fcm = "fcm-\(UUID().uuidString)"
            _ = try await devices.register(.init(token: fcm, platform: "android", osVersion: "14"), userId: id)
            #expect(try await devices.forget(token: fcm) == 1, "a token the provider refused")
            #expect(try await devices.store.devices(of: id).isEmpty)
        }
    }

    @Test(
        "devices: the APNs environment an iOS app registers with is stored, listed and looked up; production by default"
    )
    func deviceEnvironment() async throws {
        try await withWorld { world in
            let (id, _) = try await world.signUp()
            let devices = world.parts.devices
            let dev = "apns-dev-\(UUID().uuidString)"
            let store = "apns-\(UUID().uuidString)"
            let registered = try await devices.register(
                .init(token: dev, platform: "ios", osVersion: "18.1", app: "navup", apnsEnvironment: .sandbox),
                userId: id)
            #expect(registered.body.apnsEnvironment == .sandbox)
            _ = try await devices.register(
                .init(token: store, platform: "ios", osVersion: "18.1", app: "gifter"), userId: id)
            func environments(_ list: [Auth.Device]) -> [String: String] {
                Dictionary(uniqueKeysWithValues: list.map { ($0.token, "\($0.app ?? "-") \($0.apnsEnvironment)") })
            }
            let expected = [dev: "navup sandbox", store: "gifter production"]
            #expect(environments(try await devices.store.devices(of: id)) == expected)
            let contacts = try await devices.store.contacts(of: [id])
            #expect(environments(contacts.first?.devices ?? []) == expected)
            // The same install rebuilt for the App Store registers its token again as production.
            _ = try await devices.register(
                .init(token: dev, platform: "ios", osVersion: "18.1", app: "navup", apnsEnvironment: .production),
                userId: id)
            #expect(environments(try await devices.store.devices(of: id))[dev] == "navup production")
            // A device from an auth that predates the field decodes as production.
            let old = #"{"deviceId":"d","userId":"u","token":"t","platform":"ios","osVersion":"17","app":"navup"}"#
            #expect(try JSONDecoder().decode(Auth.Device.self, from: Data(old.utf8)).apnsEnvironment == .production)
        }
    }

    @Test("lookup_contacts: services get name, e-mail, display name and devices of many accounts; accounts may not")
    func lookupContacts() async throws {
        try await withWorld { world in
            var router = OperationRouter(service: .auth, logger: AuthenticatorTests.logger, clock: world.clock)
            AuthService.register(world.parts, on: &router)
            func lookup(_ ids: [String], actor: Actor? = nil) async throws -> [Auth.Contact] {
                let metadata = RequestMetadata(requestId: "contacts-\(UUID())", actor: actor)
                let frames = try Wire.encodeRequest(
                    operation: Auth.LookupContacts.name, metadata: metadata,
                    payload: Auth.LookupContacts.Request(userIds: ids))
                return try Wire.decodeReply(Auth.LookupContacts.Reply.self, from: await router.handle(frames)).contacts
            }
            let (ann, annName) = try await world.signUp("ann", email: "ann@example.org")
            let (bob, bobName) = try await world.signUp("bob")
            _ = try await world.parts.accounts.updateProfile(ann, .init(displayName: "Ann Andersson"))
            let token = "fcm-\(UUID().uuidString)"
            _ = try await world.parts.devices.register(
                .init(token: token, platform: "android", osVersion: "14"), userId: bob)
            let gone = UUID().uuidString
            let contacts = try await lookup([ann.uuidString, bob.uuidString.lowercased(), gone, ann.uuidString])
            #expect(contacts.count == 2, "the unknown id is left out and the repeated one answered once")
            let first = try #require(contacts.first { $0.userId == ann.uuidString.lowercased() })
            #expect(first.username == annName && first.email == "ann@example.org")
            #expect(first.displayName == "Ann Andersson" && first.devices.isEmpty)
            let second = try #require(contacts.first { $0.userId == bob.uuidString.lowercased() })
            let bobProfile = try await world.parts.accounts.profile(bob)
            #expect(second.username == bobName && second.email == bobProfile.email)
            #expect(second.devices.map(\.token) == [token] && second.devices.first?.platform == "android")

            let asUser = Actor(userId: bob.uuidString.lowercased(), roles: [Auth.Role.user])
            #expect(await code { _ = try await lookup([ann.uuidString], actor: asUser) } == .permissionDenied)
            let asAdmin = Actor(userId: bob.uuidString.lowercased(), roles: [Auth.Role.admin])
            #expect(await code { _ = try await lookup([ann.uuidString], actor: asAdmin) } == .permissionDenied)
            #expect(await code { _ = try await lookup(["not-a-uuid"]) } == .invalidArgument)
            let many = (0...Auth.LookupContacts.maxUserIds).map { _ in UUID().uuidString }
            #expect(await code { _ = try await lookup(many) } == .invalidArgument)
            #expect(try await lookup([]).isEmpty)
        }
    }

    @Test("deleting an account removes its sessions and devices and tells the other services")
    func deleteAccount() async throws {
        try await withWorld { world in
            let (id, name) = try await world.signUp()
            let session = try await world.parts.sessions.login(.init(username: name, password: "Lund2026x"))
            _ = try await world.parts.devices.register(
                .init(token: "del-\(UUID().uuidString)", platform: "android", osVersion: "14"), userId: id)
            let requestId = "delete-\(UUID().uuidString)"
            try await world.parts.accounts.delete(id, requestId: requestId)
            #expect(try await world.accounts.account(id: id) == nil)
            #expect(try await world.parts.devices.store.devices(of: id).isEmpty)
            #expect(
                await code { _ = try await world.parts.sessions.refresh(.init(refreshToken: session.refreshToken)) }
                    == .unauthenticated)
            let events = try await world.events(
                Auth.AccountDeleted.topic, requestId: requestId, as: Auth.AccountDeleted.self)
            #expect(events == [.init(userId: id.uuidString.lowercased())])
            #expect(await code { try await world.parts.accounts.delete(id, requestId: requestId) } == .notFound)
        }
    }

    @Test("reset: a 256-bit token by e-mail event, single use, 30 minutes; signs out sessions and lifts a hold")
    func passwordReset() async throws {
        try await withWorld { world in
            let (id, name) = try await world.signUp("reset")
            let recovery = world.parts.recovery
            let sessions = world.parts.sessions
            let before = try await sessions.login(.init(username: name, password: "Lund2026x"))
            for _ in 0..<5 {
                _ = try? await sessions.login(.init(username: name, password: "Wrong2026x"))
            }
            #expect(
                await code { _ = try await sessions.login(.init(username: name, password: "Lund2026x")) } == .locked)

            let requestId = "reset-\(UUID().uuidString)"
            try await recovery.requestReset(.init(username: name.uppercased()), requestId: requestId)
            let mails = try await world.events(
                Auth.PasswordResetRequested.topic, requestId: requestId, as: Auth.PasswordResetRequested.self)
            let mail = try #require(mails.first)
            #expect(mails.count == 1)
            #expect(mail.email == name)
            #expect(mail.userId == id.uuidString.lowercased())
            #expect(mail.token.count >= 43, "at least 256 bits, base64url")
            #expect(mail.expiresAt == Int64(((world.clock.now().timeIntervalSince1970 + 1800) * 1000).rounded()))

            #expect(
                await code { try await recovery.confirmReset(.init(token: mail.token, newPassword: "weak")) }
                    == .invalidArgument, "the rules apply, and the token is not spent by a refusal")
            #expect(
                await code { try await recovery.confirmReset(.init(token: "made-up", newPassword: "Malmo2027y")) }
                    == .invalidArgument)
            try await recovery.confirmReset(.init(token: mail.token, newPassword: "Malmo2027y"))
            #expect(
                await code { try await recovery.confirmReset(.init(token: mail.token, newPassword: "Malmo2028z")) }
                    == .invalidArgument, "single use")
            #expect(
                await code { _ = try await sessions.refresh(.init(refreshToken: before.refreshToken)) }
                    == .unauthenticated, "every session ends")
            _ = try await sessions.login(.init(username: name, password: "Malmo2027y"))
        }
    }

    @Test("reset: by e-mail too; unknown names send nothing; a token expires after 30:00")
    func resetExpiryAndUnknown() async throws {
        try await withWorld { world in
            let (_, name) = try await world.signUp("expiry")
            let recovery = world.parts.recovery
            let unknown = "unknown-\(UUID().uuidString)"
            try await recovery.requestReset(
                .init(username: "nobody-\(UUID().uuidString.prefix(8))"), requestId: unknown)
            try await recovery.requestReset(
                .init(email: "nobody-\(UUID().uuidString.prefix(8))@example.org"), requestId: unknown)
            #expect(
                try await world.events(
                    Auth.PasswordResetRequested.topic, requestId: unknown, as: Auth.PasswordResetRequested.self
                )
                .isEmpty)
            #expect(
                await code { try await recovery.requestReset(.init(), requestId: unknown) } == .invalidArgument,
                "neither username nor email")

            let requestId = "expiry-\(UUID().uuidString)"
            try await recovery.requestReset(.init(email: name.uppercased()), requestId: requestId)
            let mail = try #require(
                try await world.events(
                    Auth.PasswordResetRequested.topic, requestId: requestId, as: Auth.PasswordResetRequested.self
                ).first)
            world.clock.advance(by: 30 * 60)
            #expect(
                await code { try await recovery.confirmReset(.init(token: mail.token, newPassword: "Malmo2027y")) }
                    == .invalidArgument, "expired at 30:00")
        }
    }

    @Test("reset mails are limited per account and hour; the answer stays the same")
    func resetLimit() async throws {
        try await withWorld { world in
            let (_, name) = try await world.signUp("limit")
            let requestId = "limit-\(UUID().uuidString)"
            for _ in 0..<7 { try await world.parts.recovery.requestReset(.init(username: name), requestId: requestId) }
            let mails = try await world.events(
                Auth.PasswordResetRequested.topic, requestId: requestId, as: Auth.PasswordResetRequested.self,
                expecting: 5)
            #expect(mails.count == 5)
            world.clock.advance(by: 3601)
            let later = "limit-later-\(UUID().uuidString)"
            try await world.parts.recovery.requestReset(.init(username: name), requestId: later)
            #expect(
                try await world.events(
                    Auth.PasswordResetRequested.topic, requestId: later, as: Auth.PasswordResetRequested.self
                )
                .count == 1)
        }
    }

    @Test("username reminder: every username registered with the address, by event; nothing for unknown ones")
    func reminder() async throws {
        try await withWorld { world in
            let email = "shared-\(UUID().uuidString.prefix(8))@example.org".lowercased()
            let first = "first-\(UUID().uuidString.prefix(6))".lowercased()
            let second = "second-\(UUID().uuidString.prefix(6))".lowercased()
            for name in [first, second] {
                _ = try await world.parts.credentials.register(
                    .init(username: name, password: "Lund2026x", email: email))
            }
            let requestId = "reminder-\(UUID().uuidString)"
            try await world.parts.recovery.requestReminder(.init(email: email.uppercased()), requestId: requestId)
            let mails = try await world.events(
                Auth.UsernameReminderRequested.topic, requestId: requestId, as: Auth.UsernameReminderRequested.self)
            #expect(mails == [.init(email: email, usernames: [first, second].sorted())])

            let unknown = "reminder-unknown-\(UUID().uuidString)"
            try await world.parts.recovery.requestReminder(
                .init(email: "nobody-\(UUID().uuidString.prefix(8))@example.org"), requestId: unknown)
            #expect(
                try await world.events(
                    Auth.UsernameReminderRequested.topic, requestId: unknown, as: Auth.UsernameReminderRequested.self
                ).isEmpty)
            #expect(
                await code { try await world.parts.recovery.requestReminder(.init(email: "nope"), requestId: unknown) }
                    == .invalidArgument)
        }
    }

    @Test("a reset request for an account and one for nobody take the same time (the answer floor)")
    func resetTiming() async throws {
        try await withWorld { world in
            let (_, name) = try await world.signUp("timing")
            var recovery = world.parts.recovery
            recovery.answerFloor = .milliseconds(200)
            for username in [name, "nobody-\(UUID().uuidString.prefix(8))"] {
                let started = ContinuousClock.now
                try await recovery.evenly {
                    try await recovery.requestReset(.init(username: username), requestId: "timing-\(UUID())")
                }
                #expect(ContinuousClock.now - started >= .milliseconds(200))
            }
            let started = ContinuousClock.now
            #expect(
                await code { try await recovery.evenly { throw ServiceError(.invalidArgument, "x") } }
                    == .invalidArgument)
            #expect(ContinuousClock.now - started >= .milliseconds(200), "failures wait out the floor too")
        }
    }
}
