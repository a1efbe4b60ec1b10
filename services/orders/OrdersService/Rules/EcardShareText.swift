import Foundation
import OrdersContract

/// The text a phone attaches when it sends an e-card from its own mail app (`delivery`
/// `device`): who sends it, the greeting, and the card's link once it is rendered. Plain text,
/// no recipient address (the phone knows whom it writes to).
public enum EcardShareText {
    /// The longest greeting quoted in the text; a longer one is cut with an ellipsis.
    public static let maxGreeting = 500

    /// The share text of `ecard`, with `imageUrl` when the card has been rendered.
    public static func text(for ecard: Orders.EcardDetails, imageUrl: String?) -> String {
        let sender = ecard.senderName?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        var lines = [sender.isEmpty ? "An e-card for you!" : "An e-card for you from \(sender)!"]
        if let greeting = ecard.greeting?.trimmingCharacters(in: .whitespacesAndNewlines), !greeting.isEmpty {
            lines.append("")
            lines.append(greeting.count > maxGreeting ? String(greeting.prefix(maxGreeting)) + "…" : greeting)
        }
        if let imageUrl {
            lines.append("")
            lines.append("See the card: \(imageUrl)")
        }
        return lines.joined(separator: "\n")
    }

    /// What an order with `ecard` tells the phone, or nil unless the phone sends it.
    public static func deviceEcard(_ ecard: Orders.EcardDetails?, imageUrl: String?) -> Orders.DeviceEcard? {
        guard let ecard, ecard.delivery == Orders.EcardDelivery.device.rawValue else { return nil }
        return Orders.DeviceEcard(imageUrl: imageUrl, shareText: text(for: ecard, imageUrl: imageUrl))
    }
}
