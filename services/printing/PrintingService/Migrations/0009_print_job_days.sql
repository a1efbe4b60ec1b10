-- The printer's counts per day read print jobs by creation time, whatever their status.
CREATE INDEX print_jobs_created_idx ON print_jobs (created_at);
