/// The ZMTP 3.1 (RFC 37, NULL mechanism) units a peer writes; ``ZMTPDecoder`` reads them.
public enum ZMTPWire {
    public static let flagMore: UInt8 = 0x01
    /// The size is 8 bytes (network order), not 1.
    public static let flagLong: UInt8 = 0x02
    public static let flagCommand: UInt8 = 0x04

    /// The 64-byte greeting (version 3.1, NULL, as-server 0), then READY naming the socket type.
    public static func opening(socketType: String) -> [UInt8] {
        var greeting: [UInt8] = [0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0x7F, 3, 1]
        greeting += Array("NULL".utf8) + [UInt8](repeating: 0, count: 16)
        greeting += [UInt8](repeating: 0, count: 32)
        return greeting + command("READY", property("Socket-Type", Array(socketType.utf8)))
    }

    /// A command frame: name length, name, then `data`.
    public static func command(_ name: String, _ data: [UInt8]) -> [UInt8] {
        let body = [UInt8(name.utf8.count)] + Array(name.utf8) + data
        if body.count > 255 {
            return [flagCommand | flagLong] + withUnsafeBytes(of: UInt64(body.count).bigEndian, Array.init) + body
        }
        return [flagCommand, UInt8(body.count)] + body
    }

    /// A READY property: 1-byte name length, name, 4-byte value length, value.
    public static func property(_ name: String, _ value: [UInt8]) -> [UInt8] {
        [UInt8(name.utf8.count)] + Array(name.utf8) + withUnsafeBytes(of: UInt32(value.count).bigEndian, Array.init)
            + value
    }

    /// The header size (flags and size) of a frame of `count` bytes.
    public static func headerSize(_ count: Int) -> Int { count > 255 ? 9 : 2 }
}

/// Writes ZMTP frames into memory the caller sized (``ZMTPWire/headerSize(_:)`` plus the bytes,
/// per frame): one bounds check and one copy per frame. Writing past the end traps.
public struct ZMTPFrameWriter {
    private let memory: UnsafeMutableRawBufferPointer
    public private(set) var count = 0

    public init(_ memory: UnsafeMutableRawBufferPointer) {
        self.memory = memory
    }

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

    public mutating func frame(_ bytes: [UInt8], more: Bool) {
        bytes.withUnsafeBytes { frame($0, more: more) }
    }

    public mutating func emptyFrame(more: Bool) {
        frame(UnsafeRawBufferPointer(start: nil, count: 0), more: more)
    }
}
