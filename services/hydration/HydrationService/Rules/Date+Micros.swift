import Foundation

extension Date {
    /// Microseconds since the epoch, as the rules count time.
    var micros: Int64 { Int64((timeIntervalSince1970 * 1_000_000).rounded()) }
}
