import CArgon2
import Contract
import Foundation
import ServiceKit
import Synchronization

/// Argon2id password hashing (libargon2) with OWASP's parameters, on a fixed pool of dedicated
/// threads so that a login storm can neither block Swift's cooperative pool nor hold more than
/// `threads × memory` of hashing memory at once.
public final class PasswordHasher: Sendable {
    /// Argon2id cost parameters.
    public struct Parameters: Sendable, Equatable, CustomStringConvertible {
        /// Memory in KiB (OWASP: 19 MiB = 19456).
        public var memoryKiB: UInt32
        /// Passes (OWASP: 2).
        public var iterations: UInt32
        /// Lanes (OWASP: 1).
        public var parallelism: UInt32

        /// OWASP's recommended Argon2id setting: m=19 MiB, t=2, p=1.
        public static let owasp = Parameters(memoryKiB: 19 * 1024, iterations: 2, parallelism: 1)

        public init(memoryKiB: UInt32, iterations: UInt32, parallelism: UInt32) {
            self.memoryKiB = memoryKiB
            self.iterations = iterations
            self.parallelism = parallelism
        }

        public var description: String { "m=\(memoryKiB),t=\(iterations),p=\(parallelism)" }

        /// The parameters written in an encoded hash (`$argon2id$v=19$m=19456,t=2,p=1$...`).
        public init?(encoded: String) {
            let fields = encoded.split(separator: "$")
            guard fields.count >= 4, fields[0] == "argon2id" else { return nil }
            var values: [Substring: UInt32] = [:]
            for pair in fields[2].split(separator: ",") {
                let parts = pair.split(separator: "=")
                guard parts.count == 2, let value = UInt32(parts[1]) else { return nil }
                values[parts[0]] = value
            }
            guard let m = values["m"], let t = values["t"], let p = values["p"] else { return nil }
            self.init(memoryKiB: m, iterations: t, parallelism: p)
        }
    }

    /// The parameters new hashes get.
    public let parameters: Parameters
    /// Hashes running at once at most.
    public let threads: Int
    private let pool: DedicatedThreadPool
    private let verifications = Atomic<Int>(0)

    /// A hasher with `threads` dedicated threads (default: one per core) for which at most
    /// `queueLimit` requests wait (more are refused with `unavailable`; see
    /// ``DedicatedThreadPool``).
    public init(
        parameters: Parameters = .owasp, threads: Int = ProcessInfo.processInfo.activeProcessorCount,
        queueLimit: Int = PasswordHasher.defaultQueueLimit
    ) {
        self.parameters = parameters
        self.threads = max(1, threads)
        self.pool = DedicatedThreadPool(name: "argon2", threads: max(1, threads), queueLimit: queueLimit)
    }

    /// Requests that may wait for a hash by default: with two threads and ≈ 25 ms a hash, the
    /// last of them waits about 0.8 s.
    public static let defaultQueueLimit = 64

    /// Requests waiting for a hashing thread now.
    public var waitingRequests: Int { pool.waitingRequests }

    /// An encoded Argon2id hash of `password` with a fresh 16-byte salt.
    public func hash(_ password: String) async throws -> String {
        let parameters = self.parameters
        return try await pool.run { try Self.hashNow(password, parameters: parameters) }
    }

    /// Whether `password` matches `encoded`. A malformed hash is a mismatch, never a crash.
    public func verify(_ password: String, against encoded: String) async throws -> Bool {
        verifications.add(1, ordering: .relaxed)
        return try await pool.run {
            let result = Array(password.utf8).withUnsafeBytes { pwd in
                argon2id_verify(encoded, pwd.baseAddress, pwd.count)
            }
            return result == ARGON2_OK.rawValue
        }
    }

    /// Whether a stored hash was made with other parameters and should be replaced at the next
    /// successful login.
    public func needsRehash(_ encoded: String) -> Bool {
        Parameters(encoded: encoded) != parameters
    }

    /// How many password verifications were started so far.
    public var verificationCount: Int { verifications.load(ordering: .relaxed) }

    static func hashNow(_ password: String, parameters: Parameters) throws -> String {
        var salt = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for index in salt.indices { salt[index] = UInt8.random(in: 0...255, using: &generator) }
        let length = argon2_encodedlen(
            parameters.iterations, parameters.memoryKiB, parameters.parallelism, UInt32(salt.count), 32, Argon2_id)
        var encoded = [CChar](repeating: 0, count: length)
        let password = Array(password.utf8)
        let result = password.withUnsafeBytes { pwd in
            argon2id_hash_encoded(
                parameters.iterations, parameters.memoryKiB, parameters.parallelism, pwd.baseAddress, pwd.count, salt,
                salt.count, 32, &encoded, length)
        }
        guard result == ARGON2_OK.rawValue else {
            throw ServiceError(.internal, "argon2 failed: \(String(cString: argon2_error_message(result)))")
        }
        return String(decoding: encoded.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
