-- A delivery or composition job keeps the W3C trace context of what queued it (a request, an
-- event's consumer, another job), so that its run is a span of the same trace. NULL: queued
-- outside any trace (or with tracing off); the run then starts a trace of its own.
ALTER TABLE jobs ADD COLUMN IF NOT EXISTS traceparent text;
