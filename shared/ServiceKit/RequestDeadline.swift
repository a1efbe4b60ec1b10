/// The deadline of the request the current task is handling (milliseconds since the epoch, as
/// the caller sent it in the metadata), set by ``OperationRouter`` around each handler.
///
/// Work pools read it to refuse work they could only finish too late (``DedicatedThreadPool``);
/// work done outside a request (a job, a sweep) has none and always waits its turn.
public enum RequestDeadline {
    /// The current request's deadline, or nil outside a request or for one without a deadline.
    @TaskLocal public static var current: Int64?
}
