-- A render attempt keeps the W3C trace context of what queued it (the `orders.paid` consumer,
-- an e-card request), so that rendering is a span of the same trace. NULL: queued outside any
-- trace (or with tracing off); the attempt then starts a trace of its own.
ALTER TABLE render_jobs ADD COLUMN IF NOT EXISTS traceparent text;
