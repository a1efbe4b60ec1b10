import Contract

/// Where a device's next sync starts: the last change number it has seen, written as a
/// decimal. Opaque to clients.
public enum SyncCursor {
    /// The change number of a cursor (0 for none); `invalid_argument` naming `cursor` for
    /// anything this API did not give out.
    public static func parse(_ text: String?) throws(ServiceError) -> Int64 {
        guard let text else { return 0 }
        guard !text.isEmpty, text.utf8.count <= 19, text.utf8.allSatisfy({ (48...57).contains($0) }),
            let seq = Int64(text)
        else { throw ServiceError.invalidArgument("cursor is not one this API gave out", field: "cursor") }
        return seq
    }

    /// The cursor after change number `seq`.
    public static func text(_ seq: Int64) -> String { String(seq) }
}
