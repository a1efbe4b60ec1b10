import ZeroMQ

extension ZMTPFuzzer {
    /// Runs cases `range` split over `threads` OS threads of their own, never on Swift's
    /// cooperative pool: CPU-bound work there would starve every other task of the process (tests
    /// that run beside it included) for as long as it runs.
    public func run(_ range: Range<Int>, threads: Int) async -> ZMTPFuzzTally {
        let threads = max(1, threads)
        let start = { (part: Int) in range.lowerBound + part * range.count / threads }
        return await withTaskGroup(of: ZMTPFuzzTally.self) { group in
            for part in 0..<threads {
                let cases = start(part)..<start(part + 1)
                group.addTask {
                    let tally = try? await IOThread.run(name: "zmtp-fuzz-\(part)") {
                        var tally = ZMTPFuzzTally()
                        run(cases, into: &tally)
                        return tally
                    }
                    return tally ?? ZMTPFuzzTally()  // never nil: the body cannot throw
                }
            }
            var tally = ZMTPFuzzTally()
            for await part in group { tally.merge(part) }
            return tally
        }
    }
}
