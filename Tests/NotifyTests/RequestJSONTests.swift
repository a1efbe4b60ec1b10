import Contract
import Foundation
import NotifyContract
import Testing

/// Notify's requests as the API sends them: the inbox's query parameters and a schedule's body,
/// with their defaults.
@Suite("notify: requests in the API's shapes")
struct RequestJSONTests {
    @Test("the inbox reads the API's unread, false when it is left out")
    func inbox() throws {
        let empty = try Wire.decodePayload(Notify.ListInbox.Request.self, from: Array("{}".utf8))
        #expect(empty == .init(unreadOnly: false, cursor: nil, limit: nil))
        let unread = try Wire.decodePayload(
            Notify.ListInbox.Request.self, from: Array(#"{"unread": true, "limit": 20, "cursor": "c"}"#.utf8))
        #expect(unread == .init(unreadOnly: true, cursor: "c", limit: 20))
        // The gateway's own stream writes the same member.
        let written = try Wire.encodePayload(Notify.ListInbox.Request(unreadOnly: true, limit: 1))
        #expect(String(decoding: written, as: UTF8.self).contains(#""unread":true"#))
        do {
            _ = try Wire.decodePayload(Notify.ListInbox.Request.self, from: Array(#"{"unread": "yes"}"#.utf8))
            Issue.record("unread as text was accepted")
        } catch {
            #expect(error.details?["field"] == .string("unread"))
        }
    }

    @Test("a schedule's variables default to none when left out or null; the other members stay optional")
    func schedule() throws {
        for text in [#"{"timesOfDay": ["08:00"]}"#, #"{"timesOfDay": ["08:00"], "variables": null, "kind": null}"#] {
            let request = try Wire.decodePayload(Notify.CreateSchedule.Request.self, from: Array(text.utf8))
            #expect(request.variables.isEmpty && request.kind == nil && request.timesOfDay == ["08:00"], "\(text)")
        }
        let full = try Wire.decodePayload(
            Notify.CreateSchedule.Request.self,
            from: Array(
                #"{"kind": "reminder", "variables": {"text": "Drink water"}, "at": 1800000000000, "daysOfWeek": [1], "timeZone": "UTC"}"#
                    .utf8))
        #expect(
            full
                == .init(
                    kind: .reminder, variables: ["text": "Drink water"], at: 1_800_000_000_000, daysOfWeek: [1],
                    timeZone: "UTC"))
        do {
            _ = try Wire.decodePayload(Notify.CreateSchedule.Request.self, from: Array(#"{"variables": {"text": 1}}"#.utf8))
            Issue.record("a variable that is not text was accepted")
        } catch {
            #expect(error.code == .invalidArgument)
        }
    }
}
