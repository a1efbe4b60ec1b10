import Contract
import Foundation
import RoutingContract
import Testing

/// NavUP's admin updates as the API sends them: the path's `id` beside the draft's members, one
/// flat object, decoded by routing's contract.
@Suite("routing: admin updates are flat objects")
struct AdminRequestJSONTests {
    static let start = "2026-12-08T10:00:00Z"
    static let end = "2026-12-08T12:00:00Z"

    @Test("venue, event and goal updates read the id and the draft from one object, and write it back the same way")
    func flat() throws {
        let venue = try Wire.decodePayload(
            Routing.UpdateVenue.Request.self,
            from: Array(#"{"id": "v-1", "name": "Lab", "kind": "landmark", "level": 2, "lat": -25.75, "lon": 28.23}"#.utf8))
        #expect(venue.id == "v-1" && venue.body.name == "Lab" && venue.body.level == 2 && venue.body.history == nil)
        let event = try Wire.decodePayload(
            Routing.UpdateEvent.Request.self,
            from: Array(
                #"{"id": "e-1", "title": "Derby", "kind": "sport", "startsAt": "\#(Self.start)", "endsAt": "\#(Self.end)", "modules": null}"#
                    .utf8))
        #expect(event.id == "e-1" && event.body.title == "Derby" && event.body.modules == nil)
        let goal = try Wire.decodePayload(
            Routing.UpdateGoal.Request.self,
            from: Array(#"{"id": "g-1", "title": "Walk", "metric": "steps", "target": 8000, "reward": "a coffee"}"#.utf8))
        #expect(goal.id == "g-1" && goal.body.target == 8000 && goal.body.weekStart == nil)

        // Written as one object too, so what is sent on the bus reads back as it was.
        let written = try Wire.encodePayload(venue)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(written)) as? [String: Any])
        #expect(object["id"] as? String == "v-1" && object["name"] as? String == "Lab")
        #expect(object["venue"] == nil && object["body"] == nil)
        #expect(try Wire.decodePayload(Routing.UpdateVenue.Request.self, from: written) == venue)
        #expect(try Wire.decodePayload(Routing.UpdateGoal.Request.self, from: Wire.encodePayload(goal)) == goal)
        #expect(try Wire.decodePayload(Routing.UpdateEvent.Request.self, from: Wire.encodePayload(event)) == event)
    }

    @Test("a missing or mistyped member is a 400 naming it, the id's and the draft's alike")
    func refusals() {
        let cases: [(String, String)] = [
            (#"{"name": "Lab", "kind": "landmark", "level": 2, "lat": 1, "lon": 2}"#, "id"),
            (#"{"id": "v-1", "name": "Lab", "kind": "landmark", "lat": 1, "lon": 2}"#, "level"),
            (#"{"id": "v-1", "name": "Lab", "kind": "landmark", "level": "2", "lat": 1, "lon": 2}"#, "level"),
            (#"{"id": 7, "name": "Lab", "kind": "landmark", "level": 2, "lat": 1, "lon": 2}"#, "id"),
        ]
        for (text, field) in cases {
            do {
                _ = try Wire.decodePayload(Routing.UpdateVenue.Request.self, from: Array(text.utf8))
                Issue.record("\(text) was accepted")
            } catch {
                #expect(error.code == .invalidArgument)
                #expect(error.details?["field"] == .string(field), "\(text)")
            }
        }
        let noStart = #"{"id": "e-1", "title": "Derby", "kind": "sport", "endsAt": "\#(Self.end)"}"#
        do {
            _ = try Wire.decodePayload(Routing.UpdateEvent.Request.self, from: Array(noStart.utf8))
            Issue.record("an event without startsAt was accepted")
        } catch {
            #expect(error.details?["field"] == .string("startsAt"))
        }
    }
}
