import AuthService
import Foundation
import Store
import Testing

@Suite("Lockout (Gifter 5.2.2.1): 5 failures, 20-minute hold")
struct LockoutPolicyTests {
    let policy = LockoutPolicy()

    /// One whole attempt: admit, check, settle.
    func attempt(_ state: inout LockoutPolicy.State, correct: Bool, clock: ManualClock) -> String {
        switch policy.admit(state, now: clock.now()) {
        case .held(let retryAfter):
            return "423 \(retryAfter)"
        case .verify(let admitted):
            state = policy.settle(admitted, succeeded: correct, now: clock.now())
            return correct ? "200" : "401"
        }
    }

    @Test("five failures, then a hold that refuses even the right password until exactly 20:00")
    func hold() {
        let clock = ManualClock()
        var state = LockoutPolicy.State.fresh
        for _ in 0..<5 { #expect(attempt(&state, correct: false, clock: clock) == "401") }
        #expect(attempt(&state, correct: true, clock: clock) == "423 1200")
        clock.advance(by: 19 * 60 + 59)
        #expect(attempt(&state, correct: true, clock: clock) == "423 1")
        clock.advance(by: 1)
        #expect(attempt(&state, correct: true, clock: clock) == "200", "the hold ends at 20:00, not before")
    }

    @Test(
        "a hold's end as the store gives it back (to the microsecond, a fraction of one late) still asks for 1,200 seconds and ends at 20:00",
        arguments: [0.0, 0.000_000_1, 0.000_000_4, 0.000_000_9])
    func storedHoldEnd(drift: TimeInterval) throws {
        // Sub-microsecond digits in the clock, as a real `Date()` has.
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000.123_456_789))
        var state = LockoutPolicy.State.fresh
        for _ in 0..<5 { #expect(attempt(&state, correct: false, clock: clock) == "401") }
        let written = try #require(state.heldUntil)
        state.heldUntil = written.addingTimeInterval(drift)
        #expect(attempt(&state, correct: true, clock: clock) == "423 1200")
        clock.advance(by: 19 * 60 + 59.5)
        #expect(attempt(&state, correct: true, clock: clock) == "423 1")
        clock.advance(by: 0.5)
        #expect(attempt(&state, correct: true, clock: clock) == "200", "the hold ends at 20:00, not a second later")
    }

    @Test("a success settles to a clean slate from any state (the store clears counters without reading them)")
    func successIsAlwaysFresh() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let states = [
            LockoutPolicy.State.fresh, .init(attempts: 3, heldUntil: nil), .init(attempts: 5, heldUntil: nil),
            .init(attempts: 0, heldUntil: now.addingTimeInterval(60)),
        ]
        for state in states { #expect(policy.settle(state, succeeded: true, now: now) == .fresh) }
    }

    @Test("a success before the fifth failure resets the count")
    func reset() {
        let clock = ManualClock()
        var state = LockoutPolicy.State.fresh
        for _ in 0..<4 { _ = attempt(&state, correct: false, clock: clock) }
        #expect(attempt(&state, correct: true, clock: clock) == "200")
        for _ in 0..<4 { #expect(attempt(&state, correct: false, clock: clock) == "401") }
        #expect(attempt(&state, correct: false, clock: clock) == "401")
        #expect(attempt(&state, correct: false, clock: clock).hasPrefix("423"))
    }

    @Test("40 attempts admitted at once: only 5 passwords are checked, the rest are held")
    func parallel() {
        let now = Date()
        var state = LockoutPolicy.State.fresh
        var admitted: [LockoutPolicy.State] = []
        var held = 0
        // What the store does for 40 concurrent requests: admit each atomically, one after another.
        for _ in 0..<40 {
            switch policy.admit(state, now: now) {
            case .verify(let next):
                state = next
                admitted.append(next)
            case .held:
                held += 1
            }
        }
        #expect(admitted.count == 5)
        #expect(held == 35)
        for _ in admitted { state = policy.settle(state, succeeded: false, now: now) }
        #expect(state.heldUntil == now.addingTimeInterval(20 * 60))
    }

    @Test("limits are configurable")
    func configurable() {
        let strict = LockoutPolicy(maxFailures: 2, hold: 60)
        let clock = ManualClock()
        var state = LockoutPolicy.State.fresh
        for _ in 0..<2 {
            if case .verify(let next) = strict.admit(state, now: clock.now()) {
                state = strict.settle(next, succeeded: false, now: clock.now())
            }
        }
        #expect(strict.admit(state, now: clock.now()) == .held(retryAfter: 60))
    }
}
