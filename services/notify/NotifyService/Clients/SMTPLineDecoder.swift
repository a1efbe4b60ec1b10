import NIOCore

/// Splits the bytes from an SMTP server into lines (without the CRLF).
struct SMTPLineDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    /// Longest reply line accepted (RFC 5321 says 512).
    static let maxLine = 4096

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > Self.maxLine { throw SMTPError(code: 0, message: "reply line too long") }
            return .needMoreData
        }
        let length = newline - buffer.readerIndex
        var line = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        if line.readableBytesView.last == UInt8(ascii: "\r") {
            line = line.getSlice(at: line.readerIndex, length: line.readableBytes - 1)!
        }
        context.fireChannelRead(Self.wrapInboundOut(line))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws
        -> DecodingState
    {
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }
}
