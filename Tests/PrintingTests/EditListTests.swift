import Contract
import Foundation
import PrintingContract
import Testing

/// The edit list as orders and printing both read it (`Contract/PostcardEdit+JSON.swift`): every
/// op parsed, and each kind of mistake refused with the field that holds it.
@Suite("printing: the edit list, parsed and refused by field")
struct EditListTests {
    func values(_ json: String) throws -> [JSONValue] {
        try JSONDecoder().decode([JSONValue].self, from: Data(json.utf8))
    }

    /// The `details.field` of the error `json` is refused with, under `postcard.edits`.
    func refusal(_ json: String) throws -> String? {
        let list = try values(json)
        do {
            _ = try PostcardEdit.list(list, field: "postcard.edits")
            return nil
        } catch {
            #expect(error.code == .invalidArgument)
            guard case .string(let field) = error.details?["field"] else { return "no field" }
            return field
        }
    }

    @Test("every op is read in order, with its numbers, colours, points and text")
    func parsesEveryOp() throws {
        let edits = try PostcardEdit.list(
            try values(
                """
                [{"type": "brightness", "amount": 0.2}, {"type": "contrast", "amount": -0.5},
                 {"type": "crop", "x": 0.1, "y": 0.2, "width": 0.5, "height": 0.6},
                 {"type": "redeye", "regions": [{"x": 0.4, "y": 0.5, "radius": 0.05}]},
                 {"type": "filter", "name": "sepia"},
                 {"type": "pen", "strokes": [{"points": [[0.1, 0.1], [0.9, 0.9]], "color": "#FF8000", "width": 0.02}]},
                 {"type": "text", "text": "Hälsningar", "x": 0.05, "y": 0.8, "size": 0.1, "color": "#ffffff"}]
                """), field: "edits")
        #expect(
            edits == [
                .brightness(amount: 0.2), .contrast(amount: -0.5),
                .crop(EditRect(x: 0.1, y: 0.2, width: 0.5, height: 0.6)),
                .redeye(regions: [EditCircle(x: 0.4, y: 0.5, radius: 0.05)]), .filter(.sepia),
                .pen(strokes: [
                    PenStroke(
                        points: [EditPoint(x: 0.1, y: 0.1), EditPoint(x: 0.9, y: 0.9)],
                        color: EditColor(red: 255, green: 128, blue: 0), width: 0.02)
                ]),
                .text(
                    TextOverlay(
                        text: "Hälsningar", x: 0.05, y: 0.8, size: 0.1,
                        color: EditColor(red: 255, green: 255, blue: 255))
                ),
            ])
        #expect(try PostcardEdit.list(nil, field: "edits").isEmpty)
        #expect(
            try PostcardEdit.list(try values(#"[{"type": "redeye", "detect": true}]"#), field: "edits") == [
                .redeye(regions: [], detect: true)
            ])
        #expect(PostcardFilter.allCases.count >= 4)
    }

    @Test("a wrong edit is refused naming its field")
    func refusalsNameTheField() throws {
        #expect(
            try refusal(
                #"[{"type": "filter", "name": "sepia"}, {"type": "crop", "x": 0, "y": 0, "width": 1, "height": 1}, {"type": "brightness", "amount": 2}]"#
            )
                == "postcard.edits[2].amount")
        #expect(try refusal(#"[{"type": "brightness", "amount": "a lot"}]"#) == "postcard.edits[0].amount")
        #expect(try refusal(#"[{"type": "blur", "amount": 1}]"#) == "postcard.edits[0].type")
        #expect(try refusal(#"[{"amount": 1}]"#) == "postcard.edits[0].type")
        #expect(try refusal(#"["brightness"]"#) == "postcard.edits[0]")
        #expect(try refusal(#"[{"type": "contrast", "amount": 0.1, "gamma": 2}]"#) == "postcard.edits[0].gamma")
        #expect(
            try refusal(#"[{"type": "crop", "x": 0.5, "y": 0, "width": 0.6, "height": 1}]"#)
                == "postcard.edits[0].width")
        #expect(
            try refusal(#"[{"type": "crop", "x": 0, "y": 0, "width": 0.001, "height": 1}]"#)
                == "postcard.edits[0].width")
        #expect(try refusal(#"[{"type": "filter", "name": "lomo"}]"#) == "postcard.edits[0].name")
        #expect(try refusal(#"[{"type": "redeye", "regions": []}]"#) == "postcard.edits[0].regions")
        #expect(try refusal(#"[{"type": "redeye", "detect": "yes"}]"#) == "postcard.edits[0].detect")
        #expect(
            try refusal(#"[{"type": "redeye", "regions": [{"x": 0.5, "y": 1.5, "radius": 0.1}]}]"#)
                == "postcard.edits[0].regions[0].y")
        #expect(
            try refusal(
                ##"[{"type": "pen", "strokes": [{"points": [[0.1, 0.2, 0.3]], "color": "#000000", "width": 0.01}]}]"##)
                == "postcard.edits[0].strokes[0].points[0]")
        #expect(
            try refusal(#"[{"type": "pen", "strokes": [{"points": [[0.1, 0.2]], "color": "red", "width": 0.01}]}]"#)
                == "postcard.edits[0].strokes[0].color")
        #expect(
            try refusal(##"[{"type": "text", "text": "", "x": 0, "y": 0, "size": 0.1, "color": "#000000"}]"##)
                == "postcard.edits[0].text")
        let long = String(repeating: "a", count: PostcardEdit.maxTextLength + 1)
        #expect(
            try refusal(##"[{"type": "text", "text": "\##(long)", "x": 0, "y": 0, "size": 0.1, "color": "#000000"}]"##)
                == "postcard.edits[0].text")
    }

    @Test("bounds: at most 100 edits and 10,000 pen points in a list")
    func bounds() throws {
        let brightness = #"{"type": "brightness", "amount": 0.01}"#
        #expect(try refusal("[" + Array(repeating: brightness, count: 100).joined(separator: ",") + "]") == nil)
        #expect(
            try refusal("[" + Array(repeating: brightness, count: 101).joined(separator: ",") + "]")
                == "postcard.edits")
        let points = "[" + Array(repeating: "[0.5, 0.5]", count: 1_000).joined(separator: ",") + "]"
        let stroke = ##"{"points": \##(points), "color": "#102030", "width": 0.01}"##
        let pen = #"{"type": "pen", "strokes": [\#(Array(repeating: stroke, count: 5).joined(separator: ","))]}"#
        #expect(try refusal("[\(pen), \(pen)]") == nil)
        #expect(try refusal("[\(pen), \(pen), \(pen)]") == "postcard.edits[2].strokes")
    }
}
