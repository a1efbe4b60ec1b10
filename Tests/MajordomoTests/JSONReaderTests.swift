import Contract
import Foundation
import Testing

/// `JSONReader` and the hand-written metadata JSON against `JSONDecoder`/`JSONEncoder`: the
/// reader may refuse what the decoder takes (the decoder then reads it), but what it reads must
/// be what the decoder reads, and what is written by hand must decode to the same value.
@Suite("Hand-read and hand-written JSON")
struct JSONReaderTests {
    static let decoder = Wire.makeDecoder()
    static let encoder = Wire.makeEncoder()

    /// Reads `text` as `T` with both; the reader's value must be the decoder's whenever it
    /// answers. Answers whether the reader answered.
    @discardableResult
    static func agree<T: WireJSONDecodable & Equatable>(_ type: T.Type, _ text: String) -> Bool {
        let bytes = Array(text.utf8)
        let decoded = try? decoder.decode(T.self, from: Data(bytes))
        guard let read = T.read(from: bytes) else { return false }
        #expect(read == decoded, "\(text)")
        return true
    }

    @Test("metadata the gateway writes is read by hand, and equals the decoder's reading")
    func metadataRead() {
        let texts = [
            #"{"requestId":"r-1"}"#,
            #"{"actor":{"roles":["user","printer"],"userId":"u-1"},"deadline":1764000000123,"requestId":"r-2","traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}"#,
            #" { "requestId" : "r-3" , "deadline" : -5 , "idempotencyKey" : "k\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00" } "#,
            #"{"requestId":"r-4","actor":null,"deadline":null,"traceparent":null,"idempotencyKey":null,"extra":{"a":[1,2.5e3,true,false,null,"x"]}}"#,
            #"{"requestId":"ünïcødé ✓","actor":{"userId":"u","roles":[]}}"#,
        ]
        for text in texts { #expect(Self.agree(RequestMetadata.self, text), "\(text)") }
    }

    @Test("what the reader refuses is left to the decoder, which answers as before")
    func refusals() throws {
        let refused = [
            #"{"deadline":5}"#,  // no requestId
            #"{"requestId":"first","requestId":"last"}"#,  // the decoder keeps the first
            #"{"requestId":"r","actor":{"userId":"u","roles":[],"userId":"v"}}"#,
            #"{"requestId":"r","deadline":1.5}"#,
            #"{"requestId":"r","deadline":1e3}"#,
            #"{"requestId":"r","deadline":9223372036854775808}"#,
            #"{"requestId":"r","deadline":01}"#,
            #"{"requestId":"r",}"#,
            #"{"requestId":"r"} x"#,
            #"{"requestId":"\ud800"}"#,
            #"{"requestId":"a\u0001b"}"#.replacingOccurrences(of: "\\u0001", with: "\u{01}"),
            #"{"requestId":"r","actor":{"userId":"u"}}"#,
            #"{"requestId":"r","actor":{"userId":"u","roles":"user"}}"#,
            #"{"requestId":7}"#,
            #"{"requestId":"r""#,
            "",
            "[]",
        ]
        for text in refused {
            #expect(RequestMetadata.read(from: Array(text.utf8)) == nil, "\(text)")
            Self.agree(RequestMetadata.self, text)
        }
        // Refused by the reader, decoded by the decoder: a request still gets through.
        let frames: [[UInt8]] = [Array("op".utf8), Array(#"{"requestId":"r","deadline":1e3}"#.utf8), Array("{}".utf8)]
        #expect(try Wire.decodeRequest(frames).metadata.deadline == 1000)
        // Refused by both: the decoder's error, not the reader's.
        let bad: [[UInt8]] = [Array("op".utf8), Array(#"{"deadline":5}"#.utf8), Array("{}".utf8)]
        #expect(throws: ServiceError.self) { try Wire.decodeRequest(bad) }
    }

    @Test("numbers: integers to Int64's edges, doubles in every JSON spelling")
    func numbers() throws {
        for (text, value) in [("0", Int64(0)), ("-0", 0), ("9223372036854775807", .max), ("-9223372036854775808", .min), ("42", 42)] {
            var reader = JSONReader(Array(text.utf8))
            #expect(try reader.readInt64() == value)
        }
        for text in ["-", "+1", "00", "1.0", "1e2", "9223372036854775808", "-9223372036854775809", "x"] {
            var reader = JSONReader(Array(text.utf8))
            #expect(throws: JSONReader.Malformed.self, "\(text)") { try reader.readInt64() }
        }
        for text in ["0", "-0.5", "1.25", "1e-7", "6.02E+23", "-1.7976931348623157e308", "3"] {
            var reader = JSONReader(Array(text.utf8))
            #expect(try reader.readDouble() == Double(text)!, "\(text)")
        }
        for text in [".5", "1.", "1e", "01.5", "NaN", "Infinity", "1e999", "- 1"] {
            var reader = JSONReader(Array(text.utf8))
            #expect(throws: JSONReader.Malformed.self, "\(text)") { try reader.readDouble() }
        }
    }

    @Test("metadata written by hand decodes to the same value, for random text and fields")
    func metadataWritten() throws {
        var random = SeededRandom(seed: 0x5eed)
        let alphabet: [Character] = ["a", "Z", "0", "-", "\"", "\\", "/", "\n", "\t", "\u{01}", "\u{1f}", "é", "✓", "😀", " "]
        func text() -> String { String((0..<random.next(upTo: 12)).map { _ in alphabet[random.next(upTo: alphabet.count)] }) }
        for _ in 0..<500 {
            let metadata = RequestMetadata(
                requestId: text(),
                traceparent: random.next(upTo: 2) == 0 ? nil : text(),
                actor: random.next(upTo: 2) == 0 ? nil : Actor(userId: text(), roles: (0..<random.next(upTo: 3)).map { _ in text() }),
                deadline: random.next(upTo: 2) == 0 ? nil : Int64(random.next(upTo: 1 << 40)) - (1 << 39),
                idempotencyKey: random.next(upTo: 2) == 0 ? nil : text())
            let written = metadata.wireJSON()
            #expect(try Self.decoder.decode(RequestMetadata.self, from: Data(written)) == metadata)
            #expect(written == Array(try Self.encoder.encode(metadata)), "sorted keys, same escapes as the encoder")
            #expect(RequestMetadata.read(from: Array(try Self.encoder.encode(metadata))) == metadata)
        }
    }

    @Test("numbers written by hand read back the same")
    func numbersWritten() throws {
        for value in [0.0, -0.0, 1, -3, 0.1, 1e-7, 123456.789, 1e15, 1e16, 2.5e300, -Double.leastNonzeroMagnitude, 28.2254, -25.7545] {
            var json: [UInt8] = []
            try json.appendJSONNumber(value)
            #expect(try Self.decoder.decode(Double.self, from: Data(json)) == value, "\(value)")
        }
        for value in [Int.min, -1, 0, 7, Int.max] {
            var json: [UInt8] = []
            json.appendJSONNumber(value)
            #expect(String(decoding: json, as: UTF8.self) == String(value))
        }
        var json: [UInt8] = []
        #expect(throws: EncodingError.self) { try json.appendJSONNumber(Double.nan) }
        #expect(throws: EncodingError.self) { try json.appendJSONNumber(Double.infinity) }
    }
}

/// A small deterministic generator (SplitMix64), so a failure repeats.
struct SeededRandom {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func next(upTo bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
