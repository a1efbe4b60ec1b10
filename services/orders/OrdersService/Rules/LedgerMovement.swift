/// One ledger row to be: a movement on one account (`hold` or `charge`), in minor units.
struct LedgerMovement: Sendable, Hashable {
    /// `authorize`, `capture`, `void` or `refund`.
    let movement: String
    let account: String
    let amount: Int64
    /// The provider's id of the call that moved the money.
    let reference: String
}
