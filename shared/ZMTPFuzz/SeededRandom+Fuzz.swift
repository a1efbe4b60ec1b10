import ServiceKit

// Plain arithmetic on the generator's output: the standard library's generic `random(in:using:)`
// costs several times more in a debug build, where the unit tests run a million cases.
extension SeededRandom {
    /// Uniform enough in `0..<bound` (`bound` > 0; the modulo bias is of no matter here).
    mutating func below(_ bound: Int) -> Int { Int(truncatingIfNeeded: next() % UInt64(bound)) }

    /// In `range`.
    mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + below(range.count) }

    /// True half the time.
    mutating func coin() -> Bool { next() & 1 == 0 }

    /// True once in `n` times.
    mutating func oneIn(_ n: Int) -> Bool { below(n) == 0 }

    /// A random byte.
    mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }

    /// One of `choices` (not empty).
    mutating func pick<T>(_ choices: [T]) -> T { choices[below(choices.count)] }

    /// `count` random bytes.
    mutating func bytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var index = 0
        while index < count {
            var word = next()
            for _ in 0..<min(8, count - index) {
                bytes[index] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                index += 1
            }
        }
        return bytes
    }

    /// `count` random lower-case letters (never a command name a ROUTER acts on).
    mutating func letters(_ count: Int) -> String {
        String(decoding: (0..<count).map { _ in UInt8(0x61 + below(26)) }, as: UTF8.self)
    }
}
