import Glibc

/// Milliseconds on the monotonic clock: immune to wall-clock jumps, only for intervals.
public enum Monotonic {
    /// Now, in milliseconds since an arbitrary fixed point.
    public static func milliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }
}
