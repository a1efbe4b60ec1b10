import Contract
import Foundation
import NotifyContract
import NotifyService
import Testing

/// Pure rules: templates, quiet hours, recurrence, MIME, provider answers.
@Suite("notify: rules without I/O")
struct RulesTests {
    let stockholm = try! LocalTime("Europe/Stockholm")

    func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    @Test("templates fill variables, escape them in HTML only, and every kind names the variables it uses")
    func templates() throws {
        let kind = try NotificationCatalog.kind(Notify.Kind.orderFailed)
        let rendered = kind.template(for: "sv").render(["orderId": "A<1>", "reason": "card & bank"])
        #expect(rendered.title == "Din beställning kunde inte slutföras")
        #expect(rendered.text == "Beställning A<1> misslyckades: card & bank")
        #expect(rendered.html.contains("A&lt;1&gt;") && rendered.html.contains("card &amp; bank"))
        #expect(kind.template(for: "fi").title == "Your order could not be completed", "unknown locale → English")
        for (name, kind) in NotificationCatalog.kinds {
            for locale in kind.locales {
                #expect(
                    kind.template(for: locale).placeholders.isSubset(of: Set(kind.variables)),
                    "\(name)/\(locale) uses an undeclared variable")
            }
        }
        do {
            try kind.check(["orderId": "1"])
            Issue.record("a missing variable should be refused")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.details?["missing"] == .array([.string("reason")]))
        }
    }

    @Test("quiet hours 22:00-07:00 in Stockholm hold a 23:30 message until 07:00 local, not a 12:00 one")
    func quietHours() throws {
        let window = QuietWindow(
            start: try TimeOfDay(parsing: "22:00", field: "s"), end: try TimeOfDay(parsing: "07:00", field: "e"))
        // 2024-06-10 23:30 CEST = 21:30Z → released 2024-06-11 07:00 CEST = 05:00Z.
        #expect(window.release(date("2024-06-10T21:30:00Z"), in: stockholm) == date("2024-06-11T05:00:00Z"))
        // 02:00 local → 07:00 the same day.
        #expect(window.release(date("2024-06-11T00:00:00Z"), in: stockholm) == date("2024-06-11T05:00:00Z"))
        #expect(window.release(date("2024-06-11T10:00:00Z"), in: stockholm) == date("2024-06-11T10:00:00Z"))
        let day = QuietWindow(
            start: try TimeOfDay(parsing: "12:00", field: "s"), end: try TimeOfDay(parsing: "13:00", field: "e"))
        #expect(day.release(date("2024-01-10T11:30:00Z"), in: stockholm) == date("2024-01-10T12:00:00Z"))
        #expect(throws: ServiceError.self) { try TimeOfDay(parsing: "7:00", field: "start") }
        #expect(throws: ServiceError.self) { try TimeOfDay(parsing: "24:00", field: "start") }
    }

    @Test("recurrence: times of day on weekdays in a zone, across a daylight-saving change")
    func recurrence() throws {
        let times = [try TimeOfDay(parsing: "08:00", field: "t"), try TimeOfDay(parsing: "20:00", field: "t")]
        let weekdays = try Recurrence(once: nil, times: times, days: [1, 2, 3, 4, 5])
        // Friday 2024-03-29 21:00 CET → Monday 2024-04-01 08:00 CEST (06:00Z), after the DST change.
        #expect(weekdays.next(after: date("2024-03-29T20:00:00Z"), in: stockholm) == date("2024-04-01T06:00:00Z"))
        // Friday 2024-03-29 07:00 CET (06:00Z) → 08:00 CET (07:00Z) the same day.
        #expect(weekdays.next(after: date("2024-03-29T06:00:00Z"), in: stockholm) == date("2024-03-29T07:00:00Z"))
        let daily = try Recurrence(once: nil, times: times, days: [])
        #expect(daily.next(after: date("2024-03-30T07:00:00Z"), in: stockholm) == date("2024-03-30T19:00:00Z"))
        let once = try Recurrence(once: date("2024-05-01T10:00:00Z"), times: [], days: [])
        #expect(once.next(after: date("2024-05-01T09:00:00Z"), in: stockholm) == date("2024-05-01T10:00:00Z"))
        #expect(once.next(after: date("2024-05-01T10:00:00Z"), in: stockholm) == nil)
        #expect(throws: ServiceError.self) { try Recurrence(once: nil, times: [], days: []) }
        #expect(throws: ServiceError.self) { try Recurrence(once: nil, times: times, days: [0]) }
    }

    @Test("mail: Message-ID, Date, RFC 2047 subject, multipart/alternative, dot-stuffing")
    func mime() throws {
        let message = MailMessage(
            from: "no-reply@backplane.local", fromName: "Backplane", to: "ann@example.org",
            subject: "Återställ ditt lösenord — snälla, gör det i dag innan koden slutar fungera",
            text: "Hej\n.hidden line", html: "<p>Hej</p>", messageId: "abc@backplane.local",
            date: date("2024-01-01T00:00:00Z"))
        let text = message.rendered()
        #expect(text.contains("Message-ID: <abc@backplane.local>\r\n"))
        #expect(text.contains("Date: Mon, 01 Jan 2024 00:00:00 +0000\r\n"))
        #expect(text.contains("Content-Type: multipart/alternative; boundary="))
        #expect(text.contains("Content-Type: text/plain; charset=UTF-8") && text.contains("Content-Type: text/html"))
        let subject = MailMessage.encodeHeader(message.subject)
        let words = subject.components(separatedBy: "\r\n ")
        #expect(words.count > 1 && words.allSatisfy { $0.hasPrefix("=?UTF-8?B?") && $0.count <= 75 })
        let decoded = words.map { word -> String in
            let inner = word.dropFirst(10).dropLast(2)
            return String(decoding: Data(base64Encoded: String(inner))!, as: UTF8.self)
        }.joined()
        #expect(decoded == message.subject)
        #expect(MailMessage.encodeHeader("Plain subject") == "Plain subject")
        #expect(MailMessage.dotStuffed(".a\r\nb\r\n.c\r\n") == "..a\r\nb\r\n..c\r\n")
        #expect(text.split(separator: "\r\n").allSatisfy { $0.count <= 998 })
    }

    @Test("provider answers: only a gone or bad token is forgotten; topic, key and project refusals are config errors")
    func providerAnswers() {
        #expect(APNsClient.outcome(status: 410, reason: "Unregistered") == .invalidToken("Unregistered"))
        #expect(APNsClient.outcome(status: 410, reason: "ExpiredToken") == .invalidToken("ExpiredToken"))
        #expect(APNsClient.outcome(status: 400, reason: "BadDeviceToken") == .invalidToken("BadDeviceToken"))
        #expect(APNsClient.outcome(status: 429, reason: "TooManyRequests") == .retry("APNs 429 TooManyRequests"))
        #expect(
            APNsClient.outcome(status: 503, reason: "ServiceUnavailable") == .retry("APNs 503 ServiceUnavailable"))
        for reason in ["DeviceTokenNotForTopic", "BadTopic", "TopicDisallowed", "MissingTopic"] {
            #expect(APNsClient.outcome(status: 400, reason: reason) == .misconfigured(reason))
        }
        for reason in ["InvalidProviderToken", "BadCertificate", "BadCertificateEnvironment", "Forbidden", "HTTP 403"] {
            #expect(APNsClient.outcome(status: 403, reason: reason) == .misconfigured(reason))
        }
        #expect(
            APNsClient.outcome(status: 403, reason: "ExpiredProviderToken") == .retry("APNs 403 ExpiredProviderToken")
        )
        #expect(APNsClient.outcome(status: 413, reason: "PayloadTooLarge") == .failed("APNs 413 PayloadTooLarge"))
        let unregistered = #"{"error":{"code":404,"status":"NOT_FOUND","details":[{"errorCode":"UNREGISTERED"}]}}"#
        #expect(FCMClient.outcome(status: 404, body: Data(unregistered.utf8)) == .invalidToken("UNREGISTERED"))
        let invalid = #"{"error":{"code":400,"status":"INVALID_ARGUMENT"}}"#
        #expect(FCMClient.outcome(status: 400, body: Data(invalid.utf8)) == .failed("FCM 400 INVALID_ARGUMENT"))
        let mismatch =
            #"{"error":{"code":403,"status":"PERMISSION_DENIED","details":[{"errorCode":"SENDER_ID_MISMATCH"}]}}"#
        #expect(FCMClient.outcome(status: 403, body: Data(mismatch.utf8)) == .misconfigured("SENDER_ID_MISMATCH"))
        let apnsKey =
            #"{"error":{"code":401,"status":"UNAUTHENTICATED","details":[{"errorCode":"THIRD_PARTY_AUTH_ERROR"}]}}"#
        #expect(FCMClient.outcome(status: 401, body: Data(apnsKey.utf8)) == .misconfigured("THIRD_PARTY_AUTH_ERROR"))
        let unauthenticated = #"{"error":{"code":401,"status":"UNAUTHENTICATED"}}"#
        #expect(FCMClient.outcome(status: 401, body: Data(unauthenticated.utf8)) == .misconfigured("UNAUTHENTICATED"))
        let wrongProject = #"{"error":{"code":404,"status":"NOT_FOUND"}}"#
        #expect(FCMClient.outcome(status: 404, body: Data(wrongProject.utf8)) == .misconfigured("NOT_FOUND"))
        let busy = #"{"error":{"code":503,"status":"UNAVAILABLE"}}"#
        #expect(FCMClient.outcome(status: 503, body: Data(busy.utf8)) == .retry("FCM 503 UNAVAILABLE"))
        #expect(FCMClient.outcome(status: 429, body: Data()) == .retry("FCM 429 "))
    }

    @Test("an APNs token is one path segment, whatever the client registered")
    func apnsTokenPath() {
        #expect(
            APNsClient.pathSegment("00fc13adff785122b4ad28809a3420982341241421348097878e577c991de8f0")
                == "00fc13adff785122b4ad28809a3420982341241421348097878e577c991de8f0")
        #expect(APNsClient.pathSegment("ok-navup") == "ok-navup")
        #expect(APNsClient.pathSegment("../x?y#z/é") == "..%2Fx%3Fy%23z%2F%C3%A9")
    }

    @Test("APNS_TOPICS: app=bundle pairs, case-insensitive apps, a topic for devices without an app; bad lists refused")
    func apnsTopics() throws {
        let topics = try APNsTopics(
            parsing: "navup=com.example.navup, TapWater=com.example.tapwater", withoutApp: "com.example.legacy")
        #expect(topics.topic(for: "navup") == "com.example.navup")
        #expect(topics.topic(for: "tapwater") == "com.example.tapwater")
        #expect(topics.topic(for: "NavUP") == "com.example.navup")
        #expect(topics.topic(for: nil) == "com.example.legacy")
        #expect(topics.topic(for: "gifter") == nil)
        let defaults = try APNsTopics(parsing: APNsTopics.defaultSetting)
        #expect(APNsTopics.apps.allSatisfy { defaults.topic(for: $0) == "app.\($0)" })
        #expect(defaults.topic(for: nil) == nil)
        for bad in ["navup", "navup=", "=com.x", "navup=a,navup=b", "navup=com x"] {
            #expect(throws: ServiceError.self) { try APNsTopics(parsing: bad) }
        }
    }

    @Test("derived ids are stable and distinct")
    func derivedIDs() {
        #expect(DerivedID.make("a", "1") == DerivedID.make("a", "1"))
        #expect(DerivedID.make("a", "1") != DerivedID.make("a", "2"))
    }
}
