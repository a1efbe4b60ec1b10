import Glibc

/// Milliseconds on the monotonic clock: immune to wall-clock jumps, only for intervals.
public enum Monotonic {
    /// Now, in milliseconds since an arbitrary fixed point.
    public static func milliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    /// Now, in nanoseconds since an arbitrary fixed point.
    public static func nanoseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }
}

/// CPU time the calling thread has used (`CLOCK_THREAD_CPUTIME_ID`): what one loop costs, apart
/// from the time it waited.
public enum ThreadCPUClock {
    /// The calling thread's CPU time so far, in nanoseconds.
    public static func nanoseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }
}
