import Testing

@testable import LoadgenKit

@Suite("loadgen zmtp-fuzz")
struct ZMTPFuzzRunTests {
    @Test("a run reports its cases, the errors by kind, no broken rule and the memory before and after")
    func report() async {
        var run = ZMTPFuzzRun()
        run.cases = 5000
        run.threads = 2
        let outcome = await run.run()
        #expect(outcome.tally.cases == 5000 && outcome.tally.failureCount == 0)
        #expect(outcome.rssBefore > 0 && outcome.rssAfter > 0 && outcome.rssPeak >= outcome.rssAfter)
        let text = run.report(outcome)
        #expect(text.contains("seed 20, 5000 cases, 2 threads"))
        #expect(text.contains("rules broken: 0"))
        #expect(text.contains("  reserved_flags "))
        #expect(text.contains("RSS: before "))
    }

    @Test("--case replays one case: its bytes in hex and what the decoder made of them")
    func replay() {
        let text = ZMTPFuzzRun().replay(7)
        #expect(text.hasPrefix("seed 20 case 7: "))
        let untimed = { (text: String) in text.split(separator: "\n").filter { !$0.hasPrefix("checked in ") } }
        #expect(untimed(text) == untimed(ZMTPFuzzRun().replay(7)), "the same case every time")
        #expect(text.contains("\nchecked in "))
        #expect(text.contains("rules broken: 0"))
    }

    @Test("unknown options and bad numbers are usage errors")
    func options() async {
        #expect(await Loadgen.main(["zmtp-fuzz", "--tasks", "2"]) == 64)
        #expect(await Loadgen.main(["zmtp-fuzz", "--cases", "many"]) == 64)
        #expect(await Loadgen.main(["zmtp-fuzz", "--threads", "0"]) == 64)
        #expect(await Loadgen.main(["zmtp-fuzz", "--cases", "200", "--seed", "3"]) == 0)
    }
}
