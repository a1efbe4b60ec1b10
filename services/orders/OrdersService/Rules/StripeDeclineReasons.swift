/// Stripe's card error codes and decline codes as our `payment_required` reasons
/// (`details.reason`): `card_declined`, `insufficient_funds`, `expired_card`,
/// `processing_error`, `authentication_required`.
public enum StripeDeclineReasons {
    /// A payment that waits for the buyer's 3-D Secure step.
    public static let authenticationRequired = "authentication_required"

    /// Our reason for a card error `code` with its `decline_code`.
    public static func reason(code: String?, declineCode: String?) -> String {
        switch declineCode {
        case "insufficient_funds": return "insufficient_funds"
        case "expired_card": return "expired_card"
        case "processing_error": return "processing_error"
        case "authentication_required": return authenticationRequired
        default: break
        }
        switch code {
        case "expired_card": return "expired_card"
        case "processing_error": return "processing_error"
        case "authentication_required": return authenticationRequired
        case "insufficient_funds": return "insufficient_funds"
        default: return "card_declined"
        }
    }
}
