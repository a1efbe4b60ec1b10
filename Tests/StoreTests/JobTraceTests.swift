import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import Store
import Telemetry
import TestSupport
import Testing
import Tracing

@testable import ServiceKit

/// Jobs continue the trace that queued them: the trace context current at `enqueue` is
/// stored with the job, and a run of the job is a span `job <kind>` under it, current while the
/// job's work runs (so its log lines name the trace). Real PostgreSQL; the tracer is a test's own
/// swift-otel tracer (`Traces.install` is once per process, and other suites here run with
/// tracing off), exporting to the OTLP collector stand-in, from which the spans are read back.
@Suite("job queue: jobs continue the trace that queued them", .serialized)
struct JobTraceTests {
    /// A client's `traceparent`, as a request would bring it.
    static let remote = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    /// A job table in a fresh schema, a queue on a ManualClock that logs JSON lines into `pipe`
    /// with the trace's ids (as `LogSetup` sets up a traced process), and a tracer of its own
    /// exporting to `collector`.
    struct World {
        let queue: JobQueue
        let clock: ManualClock
        let tracer: any Tracer
        let collector: OTLPCollector
        let exporter: ServiceGroup
        let exporting: Task<Void, any Error>
        let pipe: LogOutputTests.Pipe
        let output: LogOutput
        let logger: Logger

        /// The lines logged so far, as JSON objects.
        func lines() throws -> [[String: Any]] {
            output.flush()
            return try pipe.drain().split(separator: "\n").map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
        }

        /// Stops the exporter, which sends what waits first, and answers every span the collector
        /// received.
        func finish() async -> [CollectedSpan] {
            await exporter.triggerGracefulShutdown()
            try? await exporting.value
            return await collector.spans()
        }
    }

    private func withWorld<T>(_ body: (World) async throws -> T) async throws -> T {
        let collector = try await OTLPCollector.start()
        defer { collector.stop() }
        let (tracer, service) = try Traces.makeBackend(
            Traces.Export(endpoint: collector.endpoint, serviceName: "printing", scheduleDelay: .milliseconds(50)),
            logger: Logger(label: "trace-export"))
        let exporter = ServiceGroup(services: [service], logger: Logger(label: "trace-export"))
        let exporting = Task { try await exporter.run() }
        defer { exporting.cancel() }
        return try await TestDatabase.withSchema("jobtrace") { client, schema in
            try await Migrator(client: client, schema: schema, logger: TestDatabase.logger).migrate([
                Migration(version: 1, name: "jobs", sql: JobQueue.migrationSQL(schema: schema))
            ])
            let pipe = try LogOutputTests.Pipe()
            let output = LogOutput(fileDescriptor: pipe.write)
            let handler = JSONLogHandler(
                label: "printing", level: .info, metadataProvider: Traces.logMetadata, output: output)
            let logger = Logger(label: "printing") { _ in handler }
            let clock = ManualClock()
            let queue = JobQueue(
                client: client, schema: schema, clock: clock, backoff: Backoff(base: 10, cap: 100), logger: logger)
            return try await body(
                World(
                    queue: queue, clock: clock, tracer: tracer, collector: collector, exporter: exporter,
                    exporting: exporting, pipe: pipe, output: output, logger: logger))
        }
    }

    /// A span as a request handler has it: a child of the client's `traceparent`, and its own
    /// identity as the `traceparent` it passes on.
    private func handlerSpan(_ world: World) throws -> (span: any Span, identity: TraceParent) {
        let span = try #require(
            Traces.startSpan("printing render_postcard", kind: .server, continuing: Self.remote, tracer: world.tracer))
        return (span, try #require(Traces.traceparent(of: span).flatMap { TraceParent($0) }))
    }

    @Test(
        "a job queued inside a span keeps its traceparent; each run is a child span of it with a new span id, kind and attempt, no payload; its log lines and the jobs it queues carry the trace"
    )
    func runContinuesTheTrace() async throws {
        try await withWorld { world in
            let queue = world.queue
            let (handler, identity) = try handlerSpan(world)
            let payload = Data(#"{"card": "4242-secret-text"}"#.utf8)
            let id = try await Traces.within(handler) { _ in
                try await queue.enqueue(kind: "render", payload: payload, maxAttempts: 3)
            }
            handler.end()
            #expect(try await queue.job(id: id)?.traceparent == identity.header)
            // Outside any span: none; an explicit one is kept as given.
            let plain = try await queue.enqueue(kind: "render", payload: Data("{}".utf8), runAt: .distantFuture)
            #expect(try await queue.job(id: plain)?.traceparent == nil)
            let given = try await queue.enqueue(
                kind: "render", payload: Data("{}".utf8), runAt: .distantFuture, traceparent: Self.remote)
            #expect(try await queue.job(id: given)?.traceparent == Self.remote)

            // First attempt: fails inside its span (the queue's retry line is logged there).
            let first = try #require(try await queue.claim(lease: 60).first)
            #expect(first.id == id && first.traceparent == identity.header)
            let seen: (String?, String?) = try await queue.withSpan(of: first, tracer: world.tracer) {
                world.logger.info("rendering")
                let next = try await queue.enqueue(kind: "notify", payload: Data("{}".utf8), runAt: .distantFuture)
                try await queue.fail(first, reason: "printer jammed")
                return (JobQueue.currentTraceparent, try await queue.job(id: next)?.traceparent)
            }
            // Second attempt, after the back-off: done.
            world.clock.advance(by: 10)
            let second = try #require(try await queue.claim(lease: 60).first)
            #expect(second.id == id && second.attempts == 2)
            try await queue.withSpan(of: second, tracer: world.tracer) { try await queue.complete(second) }

            let spans = await world.finish().filter { $0.name.hasPrefix("job ") }
                .sorted { ($0.attributes["job.attempt"] ?? "") < ($1.attributes["job.attempt"] ?? "") }
            try #require(spans.count == 2, "\(spans)")
            for (span, attempt) in zip(spans, [1, 2]) {
                #expect(span.name == "job render" && span.kind == 5)
                #expect(span.traceId == identity.traceIdHex)
                #expect(span.parentSpanId == identity.spanIdHex)
                #expect(span.spanId != identity.spanIdHex)
                #expect(span.attributes["job.kind"] == "render")
                #expect(span.attributes["job.attempt"] == "\(attempt)")
                #expect(span.attributes["messaging.message.id"] == id.uuidString.lowercased())
                #expect(!span.attributes.values.contains { $0.contains("secret") }, "no payload: \(span.attributes)")
            }
            #expect(spans[0].spanId != spans[1].spanId)

            // Inside the run the current context is the job's span, and what it queues keeps it.
            let firstSpan = "00-\(identity.traceIdHex)-\(spans[0].spanId)-01"
            #expect(seen.0 == firstSpan)
            #expect(seen.1 == firstSpan)

            // Log lines of the run name the trace and the job's span; none outside it does.
            let lines = try world.lines()
            let rendering = try #require(lines.first { $0["msg"] as? String == "rendering" }, "\(lines)")
            #expect(rendering["traceId"] as? String == identity.traceIdHex)
            #expect(rendering["spanId"] as? String == spans[0].spanId)
            let retried = try #require(lines.first { $0["msg"] as? String == "job will be retried" }, "\(lines)")
            #expect(retried["traceId"] as? String == identity.traceIdHex)
            world.logger.info("idle")
            let idle = try #require(try world.lines().first { $0["msg"] as? String == "idle" })
            #expect(idle["traceId"] == nil)
        }
    }

    @Test(
        "a job queued outside any trace (or with a stored traceparent that is not one) runs as the root of a new trace, even inside another span; a thrown error marks it failed"
    )
    func runWithoutParentIsARoot() async throws {
        try await withWorld { world in
            let queue = world.queue
            try await queue.enqueue(kind: "import", payload: Data("{}".utf8))
            try await queue.enqueue(kind: "import", payload: Data("{}".utf8), traceparent: "not-a-traceparent")
            let jobs = try await queue.claim(limit: 2, lease: 60)
            try #require(jobs.count == 2)
            #expect(Set(jobs.map(\.traceparent)) == [nil, "not-a-traceparent"])
            let other = try #require(Traces.startSpan("unrelated", continuing: nil, tracer: world.tracer))
            struct Broken: Error {}
            await Traces.within(other) { _ in
                for job in jobs {
                    do {
                        try await queue.withSpan(of: job, tracer: world.tracer) { () async throws -> Void in
                            throw Broken()
                        }
                    } catch {}
                }
            }
            let all = await world.finish()
            let unrelated = try #require(all.first { $0.name == "unrelated" })
            let spans = all.filter { $0.name == "job import" }
            #expect(spans.count == 2)
            for span in spans {
                #expect(span.parentSpanId == nil, "a root")
                #expect(span.traceId != unrelated.traceId)
                #expect(span.statusCode == 2)
            }
            #expect(Set(spans.map(\.traceId)).count == 2, "each its own trace")
        }
    }

    @Test(
        "a batch's jobs (notify's deliverer): each its own span in its own trace, current while its part runs, ended with its outcome"
    )
    func batchSpans() async throws {
        try await withWorld { world in
            let queue = world.queue
            let (handler, identity) = try handlerSpan(world)
            _ = try await Traces.within(handler) { _ in
                try await queue.enqueue(kind: "email", payload: Data("{}".utf8))
            }
            handler.end()
            try await queue.enqueue(kind: "push", payload: Data("{}".utf8))
            let jobs = try await queue.claim(limit: 2, lease: 60)
            let email = try #require(jobs.first { $0.kind == "email" })
            let push = try #require(jobs.first { $0.kind == "push" })
            let spans = JobSpans(jobs, queue: queue, tracer: world.tracer)
            var current: [String: String] = [:]
            for job in jobs {
                current[job.kind] = await spans.within(job) { JobQueue.currentTraceparent } ?? "none"
            }
            #expect(current["email"]?.hasPrefix("00-\(identity.traceIdHex)-") == true)
            #expect(current["email"] == spans[email].flatMap { Traces.traceparent(of: $0) })
            #expect(current["push"]?.hasPrefix("00-\(identity.traceIdHex)-") == false)
            #expect(current["push"] == spans[push].flatMap { Traces.traceparent(of: $0) })
            #expect(JobQueue.currentTraceparent == nil, "current only within")
            // The handler's span, ended, arrives; the batch's, not ended, do not.
            let early = await world.collector.spans(within: .seconds(10)) { $0.contains { $0.name == "printing render_postcard" } }
            #expect(!early.contains { $0.name.hasPrefix("job ") }, "not ended while the batch runs")
            spans.end(email, failed: true)
            spans.endAll()
            spans.endAll()
            let finished = await world.finish().filter { $0.name.hasPrefix("job ") }
            #expect(finished.map(\.name).sorted() == ["job email", "job push"])
            let emailSpan = try #require(finished.first { $0.name == "job email" })
            #expect(emailSpan.parentSpanId == identity.spanIdHex && emailSpan.statusCode == 2)
            let pushSpan = try #require(finished.first { $0.name == "job push" })
            #expect(pushSpan.parentSpanId == nil && pushSpan.statusCode == 0)
        }
    }

    @Test("tracing off: no span, no context, the job's work just runs")
    func tracingOff() async throws {
        try await withWorld { world in
            let queue = world.queue
            try await queue.enqueue(kind: "render", payload: Data("{}".utf8), traceparent: Self.remote)
            let job = try #require(try await queue.claim(lease: 60).first)
            let inside = await queue.withSpan(of: job, tracer: nil) { JobQueue.currentTraceparent }
            #expect(inside == nil)
            let spans = JobSpans([job], queue: queue, tracer: nil)
            #expect(spans[job] == nil)
            #expect(await spans.within(job) { JobQueue.currentTraceparent } == nil)
            // The process has no tracer installed here: the default is off too.
            #expect(Traces.tracer == nil)
            #expect(await queue.withSpan(of: job) { JobQueue.currentTraceparent } == nil)
            #expect(await world.finish().isEmpty)
        }
    }
}
