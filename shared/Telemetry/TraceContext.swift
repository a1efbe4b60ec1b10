import Tracing

/// The trace identity of the span a task is in, as it sits in an `InstrumentationContext`
/// (swift-distributed-tracing's task-local context): what a child span, a bus call or an event
/// carries on.
public struct TraceContext: Sendable, Hashable {
    /// Trace id, this span's id and flags (as a `traceparent` would carry them onwards).
    public var parent: TraceParent
    /// The `tracestate` received with it, passed on unchanged.
    public var state: String?
    /// Whether the span is recorded here (false for one the caller marked "not sampled", or a
    /// remote parent that was only extracted).
    public var isRemote: Bool

    /// A trace context.
    public init(parent: TraceParent, state: String? = nil, isRemote: Bool = false) {
        self.parent = parent
        self.state = state
        self.isRemote = isRemote
    }
}

/// The key under which a ``TraceContext`` sits in an `InstrumentationContext`.
public enum TraceContextKey: InstrumentationContextKey {
    public typealias Value = TraceContext
    public static var nameOverride: String? { "w3c-trace-context" }
}

extension InstrumentationContext {
    /// The W3C trace context in this context, if any.
    public var traceContext: TraceContext? {
        get { self[TraceContextKey.self] }
        set { self[TraceContextKey.self] = newValue }
    }
}
