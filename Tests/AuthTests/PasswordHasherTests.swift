import Foundation
import PasswordHashing
import ServiceKit
import Synchronization
import Testing

@testable import AuthService

@Suite("Argon2id hashing")
struct PasswordHasherTests {
    /// Cheap parameters so tests are fast; the format and rules are the same.
    let hasher = PasswordHasher(parameters: .init(memoryKiB: 1024, iterations: 1, parallelism: 1), threads: 2)

    @Test("OWASP parameters are the default: m=19 MiB, t=2, p=1, in an encoded argon2id string")
    func owasp() async throws {
        let real = PasswordHasher(threads: 1)
        let encoded = try await real.hash("Lund2026x")
        #expect(encoded.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
        #expect(try await real.verify("Lund2026x", against: encoded))
    }

    @Test("the right password verifies, a wrong one does not, a malformed hash is a mismatch")
    func verify() async throws {
        let encoded = try await hasher.hash("Hälsningar från Lund 1")
        #expect(try await hasher.verify("Hälsningar från Lund 1", against: encoded))
        #expect(try await !hasher.verify("Hälsningar från Lund 2", against: encoded))
        #expect(try await !hasher.verify("x", against: "$argon2id$garbage"))
        #expect(try await hasher.hash("same") != hasher.hash("same"), "a fresh salt each time")
    }

    @Test("a hash made with older parameters is flagged for re-hashing")
    func rehash() async throws {
        let old = PasswordHasher(parameters: .init(memoryKiB: 512, iterations: 1, parallelism: 1), threads: 1)
        let encoded = try await old.hash("Lund2026x")
        #expect(hasher.needsRehash(encoded))
        #expect(!hasher.needsRehash(try await hasher.hash("Lund2026x")))
        #expect(hasher.needsRehash("not a hash"))
    }

    /// Counts jobs running at once and the most seen.
    final class Gauge: Sendable {
        let state = Mutex((running: 0, peak: 0))
        func enter() {
            state.withLock {
                $0.running += 1; $0.peak = max($0.peak, $0.running)
            }
        }
        func leave() { state.withLock { $0.running -= 1 } }
    }

    @Test("no more hashes run at once than the pool has threads, and none on the cooperative pool")
    func bounded() async throws {
        let pool = DedicatedThreadPool(name: "argon2", threads: 2)
        let gauge = Gauge()
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    try await pool.run {
                        gauge.enter()
                        defer { gauge.leave() }
                        usleep(20_000)
                        return DedicatedThreadPool.currentThread?.name == "argon2"
                    }
                }
            }
            for try await onPoolThread in group { #expect(onPoolThread) }
        }
        #expect(gauge.state.withLock { $0.peak } == 2)
    }
}
