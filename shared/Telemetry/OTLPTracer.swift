import Synchronization
import Tracing

/// A span as it is exported: what ``RecordingSpan`` hands to the ``SpanBuffer`` when it ends.
public struct FinishedSpan: Sendable {
    public var traceIdHigh: UInt64
    public var traceIdLow: UInt64
    public var spanId: UInt64
    /// 0 for a root span.
    public var parentSpanId: UInt64
    public var traceState: String?
    public var name: String
    public var kind: SpanKind
    public var startNanos: UInt64
    public var endNanos: UInt64
    public var attributes: SpanAttributes
    public var status: SpanStatus?
    public var events: [SpanEvent]
    public var links: [TraceParent]
}

/// The tracer: W3C trace context in, spans out to a ``SpanBuffer`` (which the exporter empties).
///
/// Installed process-wide by ``Traces/install(_:)`` only when an OTLP endpoint is configured;
/// without one nothing here runs (see ``Traces``).
public struct OTLPTracer: Tracer {
    public typealias Span = RecordingSpan

    /// Where ended, sampled spans go.
    public let buffer: SpanBuffer
    /// Which new traces are recorded.
    public let sampler: Sampler

    /// A tracer writing to `buffer`.
    public init(buffer: SpanBuffer, sampler: Sampler = Sampler()) {
        self.buffer = buffer
        self.sampler = sampler
    }

    public func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> InstrumentationContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> RecordingSpan {
        var context = context()
        let parent = context.traceContext
        var random = SystemRandomNumberGenerator()
        var spanId: UInt64 = 0
        while spanId == 0 { spanId = random.next() }
        var high: UInt64
        var low: UInt64
        if let parent {
            high = parent.parent.traceIdHigh
            low = parent.parent.traceIdLow
        } else {
            repeat {
                high = random.next()
                low = random.next()
            } while high == 0 && low == 0
        }
        let sampled = sampler.samples(traceIdLow: low, parentSampled: parent?.parent.sampled)
        let own = TraceParent(
            traceIdHigh: high, traceIdLow: low, spanId: spanId,
            flags: (parent.map { $0.parent.flags & ~1 } ?? 0) | (sampled ? 1 : 0))
        context.traceContext = TraceContext(parent: own, state: parent?.state)
        return RecordingSpan(
            name: operationName, kind: kind, context: context, identity: own, parentSpanId: parent?.parent.spanId ?? 0,
            traceState: parent?.state, start: instant().nanosecondsSinceEpoch, sink: sampled ? buffer : nil)
    }

    public func forceFlush() { buffer.requestFlush() }

    /// Reads `traceparent` and `tracestate` from `carrier` into `context` (a remote parent).
    public func extract<Carrier, Extract>(
        _ carrier: Carrier, into context: inout InstrumentationContext, using extractor: Extract
    ) where Extract: Extractor, Extract.Carrier == Carrier {
        guard let header = extractor.extract(key: "traceparent", from: carrier), let parent = TraceParent(header)
        else { return }
        context.traceContext = TraceContext(
            parent: parent, state: TraceState.sanitized(extractor.extract(key: "tracestate", from: carrier)),
            isRemote: true)
    }

    /// Writes the context's `traceparent` (and `tracestate`) into `carrier`.
    public func inject<Carrier, Inject>(
        _ context: InstrumentationContext, into carrier: inout Carrier, using injector: Inject
    ) where Inject: Injector, Inject.Carrier == Carrier {
        guard let trace = context.traceContext else { return }
        injector.inject(trace.parent.header, forKey: "traceparent", into: &carrier)
        if let state = trace.state { injector.inject(state, forKey: "tracestate", into: &carrier) }
    }
}

/// A span of ours: recorded (its ``FinishedSpan`` goes to the buffer when it ends) when its trace
/// is sampled, otherwise it only carries the trace context on.
public final class RecordingSpan: Tracing.Span, Sendable {
    private struct State {
        var name: String
        var attributes: SpanAttributes = [:]
        var status: SpanStatus?
        var events: [SpanEvent] = []
        var links: [TraceParent] = []
        var ended = false
    }

    public let context: InstrumentationContext
    /// This span's trace id, span id and flags.
    public let identity: TraceParent
    private let kind: SpanKind
    private let parentSpanId: UInt64
    private let traceState: String?
    private let start: UInt64
    private let sink: SpanBuffer?
    private let state: Mutex<State>

    init(
        name: String, kind: SpanKind, context: InstrumentationContext, identity: TraceParent, parentSpanId: UInt64,
        traceState: String?, start: UInt64, sink: SpanBuffer?
    ) {
        self.context = context
        self.identity = identity
        self.kind = kind
        self.parentSpanId = parentSpanId
        self.traceState = traceState
        self.start = start
        self.sink = sink
        self.state = Mutex(State(name: name))
    }

    /// The `traceparent` a callee of this span gets.
    public var traceparent: String { identity.header }

    public var operationName: String {
        get { state.withLock { $0.name } }
        set { state.withLock { $0.name = newValue } }
    }

    public var attributes: SpanAttributes {
        get { state.withLock { $0.attributes } }
        set {
            guard sink != nil else { return }
            state.withLock { $0.attributes = newValue }
        }
    }

    public var isRecording: Bool { sink != nil && !state.withLock { $0.ended } }

    public func setStatus(_ status: SpanStatus) {
        guard sink != nil else { return }
        state.withLock { $0.status = status }
    }

    public func addEvent(_ event: SpanEvent) {
        guard sink != nil else { return }
        state.withLock { $0.events.append(event) }
    }

    /// Records that an error happened, by its type only: an error's text may hold what must not
    /// leave the service (see the README's redaction rules).
    public func recordError<Instant: TracerInstant>(
        _ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant
    ) {
        guard sink != nil else { return }
        var attributes = attributes
        attributes["exception.type"] = String(describing: type(of: error))
        addEvent(SpanEvent(name: "exception", at: instant(), attributes: attributes))
    }

    public func addLink(_ link: SpanLink) {
        guard sink != nil, let other = link.context.traceContext else { return }
        state.withLock { $0.links.append(other.parent) }
    }

    public func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        guard let sink else { return }
        let finished: State? = state.withLock { state in
            guard !state.ended else { return nil }
            state.ended = true
            return state
        }
        guard let finished else { return }
        sink.push(
            FinishedSpan(
                traceIdHigh: identity.traceIdHigh, traceIdLow: identity.traceIdLow, spanId: identity.spanId,
                parentSpanId: parentSpanId, traceState: traceState, name: finished.name, kind: kind,
                startNanos: start, endNanos: instant().nanosecondsSinceEpoch, attributes: finished.attributes,
                status: finished.status, events: finished.events, links: finished.links))
    }
}

/// Ended spans waiting for the exporter: bounded, never blocks the span's task; a span that
/// finds it full is dropped and counted.
public final class SpanBuffer: Sendable {
    /// How many spans it holds at most (`OTEL_BSP_MAX_QUEUE_SIZE`).
    public let capacity: Int
    /// How many spans make the exporter send at once instead of waiting for its interval.
    public let batchSize: Int
    private let spans: Mutex<[FinishedSpan]>
    private let droppedCount = Atomic<Int>(0)
    private let wake: AsyncStream<Void>.Continuation
    /// Yields when a batch is ready or a flush was asked for (the exporter waits on it).
    public let wakeUps: AsyncStream<Void>

    /// An empty buffer.
    public init(capacity: Int = 2048, batchSize: Int = 512) {
        self.capacity = max(1, capacity)
        self.batchSize = max(1, min(batchSize, capacity))
        self.spans = Mutex([])
        (wakeUps, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Spans dropped because the buffer was full, since start.
    public var dropped: Int { droppedCount.load(ordering: .relaxed) }

    /// Adds an ended span, or drops it when full.
    public func push(_ span: FinishedSpan) {
        let count: Int? = spans.withLock { spans in
            guard spans.count < capacity else { return nil }
            spans.append(span)
            return spans.count
        }
        guard let count else {
            droppedCount.add(1, ordering: .relaxed)
            return
        }
        if count == batchSize { wake.yield() }
    }

    /// Takes up to `limit` spans, oldest first.
    public func take(upTo limit: Int) -> [FinishedSpan] {
        spans.withLock { spans in
            let taken = Array(spans.prefix(limit))
            spans.removeFirst(taken.count)
            return taken
        }
    }

    /// How many spans wait.
    public var count: Int { spans.withLock { $0.count } }

    /// Asks the exporter to send what waits now.
    public func requestFlush() { wake.yield() }

    /// Ends ``wakeUps`` (at shutdown).
    public func finish() { wake.finish() }
}
