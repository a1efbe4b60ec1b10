import Testing

@testable import LoadgenKit

@Suite("loadgen log-lines")
struct LogLineBenchTests {
    @Test("both ways of writing an access line are measured in every round, and reported")
    func rounds() {
        var bench = LogLineBench()
        bench.lines = 2_000
        bench.rounds = 2
        let rounds = bench.run()
        #expect(rounds.count == 2)
        #expect(rounds.allSatisfy { $0.swiftLog > 0 && $0.fields > 0 })
        let report = bench.report(rounds)
        #expect(report.contains("| round | through swift-log | as fields | fields / swift-log |"))
        #expect(report.split(separator: "\n").filter { $0.hasPrefix("| 2 |") }.count == 1)
    }
}
