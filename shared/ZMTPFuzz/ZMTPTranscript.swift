import ZeroMQ

/// What a fresh ``ZMTPDecoder`` made of a stream fed to it in given pieces: the events, the error
/// that ended it, and where it stopped. The same stream must give the same transcript however it
/// is cut.
public struct ZMTPTranscript: Equatable, Sendable {
    /// The events, in order (those before the error, when there is one).
    public var records: [ZMTPRecord] = []
    /// The protocol error that ended the stream, if any.
    public var failure: ZMTPProtocolError?
    /// The decoder's ``ZMTPDecoder/decodedByteCount`` at the end.
    public var decodedByteCount = 0
    /// Bytes it held at the end, waiting for the rest of their unit.
    public var bufferedByteCount = 0

    /// Feeds `input` to a decoder in pieces cut at `cuts` (offsets in `input`, ascending; a cut
    /// outside it is ignored), and records what it made of them. `peak` is set to the most bytes
    /// the decoder held between two pieces.
    public init(decoding input: [UInt8], cuts: [Int] = [], maxMessageSize: Int, peak: inout Int) {
        var decoder = ZMTPDecoder(maxMessageSize: maxMessageSize)
        var records: [ZMTPRecord] = []
        var start = 0
        input.withUnsafeBytes { bytes in
            for end in cuts + [bytes.count] where end >= start && end <= bytes.count {
                do {
                    try decoder.decode(UnsafeRawBufferPointer(rebasing: bytes[start..<end])) { event in
                        records.append(ZMTPRecord(event))
                        return true
                    }
                } catch {
                    return
                }
                peak = max(peak, decoder.bufferedByteCount)
                start = end
            }
        }
        self.records = records
        failure = decoder.failure
        decodedByteCount = decoder.decodedByteCount
        bufferedByteCount = decoder.bufferedByteCount
    }

    /// ``init(decoding:cuts:maxMessageSize:peak:)`` without the peak.
    public init(decoding input: [UInt8], cuts: [Int] = [], maxMessageSize: Int = 64 << 20) {
        var peak = 0
        self.init(decoding: input, cuts: cuts, maxMessageSize: maxMessageSize, peak: &peak)
    }
}
