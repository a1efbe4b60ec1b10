/// Which traces are recorded: `OTEL_TRACES_SAMPLER` (and `OTEL_TRACES_SAMPLER_ARG` for a ratio),
/// the OpenTelemetry SDK's names.
public struct Sampler: Sendable, Hashable {
    /// What to do for a new trace (no parent).
    public enum Root: Sendable, Hashable {
        case always, never
        /// Record this fraction of new traces, chosen by trace id (so every service agrees).
        case ratio(Double)
    }

    /// The decision for a trace that has no parent.
    public var root: Root
    /// Whether a span with a parent follows the parent's `sampled` flag (`parentbased_*`).
    public var parentBased: Bool

    /// A sampler.
    public init(root: Root = .always, parentBased: Bool = true) {
        self.root = root
        self.parentBased = parentBased
    }

    /// The names `OTEL_TRACES_SAMPLER` takes.
    public static let names = [
        "parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio", "always_on", "always_off",
        "traceidratio",
    ]

    /// The sampler that `name` and `argument` describe; nil for an unknown name or a ratio
    /// argument that is not a number in 0...1.
    public init?(name: String, argument: String?) {
        let ratio: Double
        if let argument, !argument.isEmpty {
            guard let value = Double(argument), (0...1).contains(value) else { return nil }
            ratio = value
        } else {
            ratio = 1
        }
        switch name {
        case "parentbased_always_on", "": self.init(root: .always, parentBased: true)
        case "parentbased_always_off": self.init(root: .never, parentBased: true)
        case "parentbased_traceidratio": self.init(root: .ratio(ratio), parentBased: true)
        case "always_on": self.init(root: .always, parentBased: false)
        case "always_off": self.init(root: .never, parentBased: false)
        case "traceidratio": self.init(root: .ratio(ratio), parentBased: false)
        default: return nil
        }
    }

    /// Whether a span of trace `traceIdLow` is recorded, given its parent's flag (nil: no parent).
    public func samples(traceIdLow: UInt64, parentSampled: Bool?) -> Bool {
        if parentBased, let parentSampled { return parentSampled }
        switch root {
        case .always: return true
        case .never: return false
        case .ratio(let ratio):
            if ratio >= 1 { return true }
            if ratio <= 0 { return false }
            // The low 56 bits of the trace id, as W3C level 2 suggests for random trace ids.
            return Double(traceIdLow & 0x00FF_FFFF_FFFF_FFFF) < ratio * Double(1 << 56)
        }
    }
}
