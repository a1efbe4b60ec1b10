-- A job keeps the W3C trace context of what queued it, so that its run is a span of the same
-- trace. NULL: queued outside any trace (the scheduled imports, or with tracing off); the run
-- then starts a trace of its own.
ALTER TABLE civic.jobs ADD COLUMN IF NOT EXISTS traceparent text;
