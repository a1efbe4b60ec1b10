/// A postcard size PostcardBuddy prints and prices, laid out landscape: the long side across.
/// Orders price it, printing's postage file prices its stamp, the renderer lays it out.
public enum CardSize: String, Codable, Sendable, CaseIterable {
    case a6 = "A6"
    case a5 = "A5"
    case a4 = "A4"

    /// The size named `text`, in any case (`a6` is A6); nil for a size we do not print.
    public init?(named text: String) { self.init(rawValue: text.uppercased()) }

    /// The names of every size, in order: `A6`, `A5`, `A4`.
    public static let names = allCases.map(\.rawValue)

    /// Width and height of the trimmed card in millimetres (landscape).
    public var millimetres: (width: Double, height: Double) {
        switch self {
        case .a6: (148, 105)
        case .a5: (210, 148)
        case .a4: (297, 210)
        }
    }
}
