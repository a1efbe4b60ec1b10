import Contract
import Foundation
import TestSupport
import Testing

/// ``Identified``: the path's `id` beside the body's members, one flat object both ways.
@Suite("Identified: an id beside a body in one object")
struct IdentifiedTests {
    /// A body with the members a draft has: one required, one optional.
    struct Draft: Codable, Sendable, Equatable {
        var name: String
        var level: Int?
    }

    /// A body whose schema allows no other members; `id` is among those it allows, as the
    /// object it reads carries the id too.
    struct Strict: Codable, Sendable, Equatable {
        var name: String

        enum Members: String, CodingKey, CaseIterable { case id, name }

        init(name: String) { self.name = name }

        init(from decoder: any Decoder) throws {
            try decoder.refuseMembers(otherThan: Members.self)
            name = try decoder.container(keyedBy: Members.self).decode(String.self, forKey: .name)
        }
    }

    @Test("decodes the id and the body from one object and writes them back into one")
    func roundTrip() throws {
        let request = try WirePayload.decode(Identified<Draft>.self, #"{"id": "d-1", "name": "Lab", "level": 2}"#).get()
        #expect(request == Identified(id: "d-1", body: Draft(name: "Lab", level: 2)))
        let object = try #require(try WirePayload.object(request))
        #expect(object["id"] as? String == "d-1" && object["name"] as? String == "Lab" && object["level"] as? Int == 2)
        #expect(object["body"] == nil && object.count == 3)
        #expect(try Wire.decodePayload(Identified<Draft>.self, from: Wire.encodePayload(request)) == request)
        let bare = try WirePayload.decode(Identified<Draft>.self, #"{"id": "d-2", "name": "Hall"}"#).get()
        #expect(bare.body.level == nil)
    }

    @Test("a missing or mistyped id, or a missing body member, is refused naming it")
    func missing() {
        #expect(WirePayload.refused(Identified<Draft>.self, #"{"name": "Lab"}"#) == "id")
        #expect(WirePayload.refused(Identified<Draft>.self, #"{"id": 7, "name": "Lab"}"#) == "id")
        #expect(WirePayload.refused(Identified<Draft>.self, #"{"id": "d-1"}"#) == "name")
    }

    @Test("a body that refuses undeclared members still takes the id, and refuses any other naming the body")
    func refusedMember() throws {
        let request = try WirePayload.decode(Identified<Strict>.self, #"{"id": "s-1", "name": "Lab"}"#).get()
        #expect(request == Identified(id: "s-1", body: Strict(name: "Lab")))
        #expect(WirePayload.refused(Identified<Strict>.self, #"{"id": "s-1", "name": "Lab", "colour": 1}"#) == "body")
        #expect(WirePayload.refused(Identified<Strict>.self, #"{"name": "Lab"}"#) == "id")
    }
}
