/// The few units of ZMTP 3.1 (RFC 37, NULL mechanism) that a peer writes, shared by the sockets
/// that speak it themselves (``ZMTPRouter``, and Majordomo's event-loop client). Reading them is
/// ``ZMTPDecoder``'s business.
public enum ZMTPWire {
    /// A frame's flag: more frames of the same message follow.
    public static let flagMore: UInt8 = 0x01
    /// A frame's flag: its size is 8 bytes (network order), not 1.
    public static let flagLong: UInt8 = 0x02
    /// A frame's flag: it is a command, not part of a message.
    public static let flagCommand: UInt8 = 0x04

    /// What a peer sends first: the 64-byte greeting (signature, version 3.1, mechanism NULL,
    /// as-server 0, filler), then READY naming its socket type.
    public static func opening(socketType: String) -> [UInt8] {
        var greeting: [UInt8] = [0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0x7F, 3, 1]
        greeting += Array("NULL".utf8) + [UInt8](repeating: 0, count: 16)
        greeting += [UInt8](repeating: 0, count: 32)
        return greeting + command("READY", property("Socket-Type", Array(socketType.utf8)))
    }

    /// A command frame: its name's length, its name, then `data`.
    public static func command(_ name: String, _ data: [UInt8]) -> [UInt8] {
        let body = [UInt8(name.utf8.count)] + Array(name.utf8) + data
        if body.count > 255 {
            return [flagCommand | flagLong] + withUnsafeBytes(of: UInt64(body.count).bigEndian, Array.init) + body
        }
        return [flagCommand, UInt8(body.count)] + body
    }

    /// One metadata property of a READY: 1-byte name length, name, 4-byte value length, value.
    public static func property(_ name: String, _ value: [UInt8]) -> [UInt8] {
        [UInt8(name.utf8.count)] + Array(name.utf8) + withUnsafeBytes(of: UInt32(value.count).bigEndian, Array.init)
            + value
    }

    /// The size of a frame's header (flags and size) for a body of `count` bytes.
    public static func headerSize(_ count: Int) -> Int { count > 255 ? 9 : 2 }
}

/// Writes ZMTP frames (header, then bytes) straight into memory reserved for them: one bounds
/// check and one copy per frame, where a growing buffer checks its capacity, and its exclusive
/// access, at every integer it writes. Its user sizes the memory first (``ZMTPWire/headerSize(_:)``
/// plus the bytes, per frame); writing past the end stops the process rather than the memory.
public struct ZMTPFrameWriter {
    private let memory: UnsafeMutableRawBufferPointer
    /// Bytes written so far.
    public private(set) var count = 0

    public init(_ memory: UnsafeMutableRawBufferPointer) {
        self.memory = memory
    }

    /// One frame of `bytes`, flagged MORE when another frame of the message follows.
    public mutating func frame(_ bytes: UnsafeRawBufferPointer, more: Bool) {
        let size = bytes.count
        let flags = more ? ZMTPWire.flagMore : 0
        let header = ZMTPWire.headerSize(size)
        precondition(count + header + size <= memory.count, "ZMTPFrameWriter: frame past the reserved memory")
        if header == 2 {
            memory[count] = flags
            memory[count + 1] = UInt8(truncatingIfNeeded: size)
        } else {
            memory[count] = flags | ZMTPWire.flagLong
            memory.storeBytes(of: UInt64(size).bigEndian, toByteOffset: count + 1, as: UInt64.self)
        }
        count += header
        if size > 0, let source = bytes.baseAddress {
            (memory.baseAddress! + count).copyMemory(from: source, byteCount: size)
        }
        count += size
    }

    /// One frame of `bytes` (see ``frame(_:more:)-(UnsafeRawBufferPointer,_)``).
    public mutating func frame(_ bytes: [UInt8], more: Bool) {
        bytes.withUnsafeBytes { frame($0, more: more) }
    }

    /// An empty frame.
    public mutating func emptyFrame(more: Bool) {
        frame(UnsafeRawBufferPointer(start: nil, count: 0), more: more)
    }
}
