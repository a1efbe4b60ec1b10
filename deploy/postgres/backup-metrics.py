#!/usr/bin/env python3
"""Prometheus metrics of a pgBackRest repository, for the BackplaneBackupStale alert.

    backup-metrics.py [--port PORT] [--host HOST] [-- COMMAND...]
    backup-metrics.py --once [-- COMMAND...]     print the metrics once and exit
    backup-metrics.py --probe [--port PORT]      exit 0 when a running one answers /healthz

Serves GET /metrics (and /healthz). Each scrape runs COMMAND, by default `pgbackrest
--output=json info`, which reads the repository from pgBackRest's own settings (PGBACKREST_*
variables or its configuration file), and reports its newest backups. The answer is kept for
CACHE_S seconds: `pgbackrest info` decrypts the repository's manifest on each run.

  backplane_backup_info_up 1 when the command answered and the stanza is ok (a stanza
      without a backup yet is ok); 0 otherwise, and then no other series
  backplane_backup_last_success_timestamp_seconds{type} when the newest good backup of
      each type (full, diff, incr) ended; 0 for a type never taken
  backplane_backup_last_duration_seconds, _last_size_bytes: the newest good backup's
      duration and the bytes it added to the repository (compressed, encrypted)
  backplane_backup_count: good backups the repository holds
  backplane_backup_schedule_seconds: BACKUP_EVERY_S, the interval backups are meant to come at;
      the alert fires when the newest is older than twice that

Environment: BACKUP_METRICS_PORT (default 9188), BACKUP_EVERY_S (default 3600), CACHE_S (10).
Only the standard library: it runs in the PostgreSQL image beside pgBackRest.
"""
import argparse
import json
import os
import subprocess
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TYPES = ("full", "diff", "incr")
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def metrics(info_json, schedule_s):
    """The exposition text for `pgbackrest --output=json info`'s answer (None: it failed)."""
    lines = [
        "# HELP backplane_backup_schedule_seconds The interval backups are meant to be taken at.",
        "# TYPE backplane_backup_schedule_seconds gauge",
        f"backplane_backup_schedule_seconds {schedule_s}",
        "# HELP backplane_backup_info_up 1 when pgBackRest answered and the stanza is ok.",
        "# TYPE backplane_backup_info_up gauge",
    ]
    try:
        stanzas = json.loads(info_json) if info_json is not None else None
        # 0: ok; 2: no valid backups yet, which is what the timestamps of 0 say.
        good = bool(stanzas) and all(s.get("status", {}).get("code") in (0, 2) for s in stanzas)
    except ValueError:
        good = False
    if not good:
        return "\n".join(lines + ["backplane_backup_info_up 0", ""])
    backups = [b for s in stanzas for b in s.get("backup", []) if not b.get("error", False)]
    newest = {t: max((b["timestamp"]["stop"] for b in backups if b.get("type") == t), default=0) for t in TYPES}
    last = max(backups, key=lambda b: b["timestamp"]["stop"], default=None)
    lines += [
        "backplane_backup_info_up 1",
        "# HELP backplane_backup_last_success_timestamp_seconds When the newest good backup of a type ended (0: none).",
        "# TYPE backplane_backup_last_success_timestamp_seconds gauge",
    ]
    lines += [f'backplane_backup_last_success_timestamp_seconds{{type="{t}"}} {newest[t]}' for t in TYPES]
    lines += [
        "# HELP backplane_backup_count Good backups the repository holds.",
        "# TYPE backplane_backup_count gauge",
        f"backplane_backup_count {len(backups)}",
    ]
    if last is not None:
        stamp = last["timestamp"]
        added = last.get("info", {}).get("repository", {}).get("delta", 0)
        lines += [
            "# HELP backplane_backup_last_duration_seconds How long the newest good backup took.",
            "# TYPE backplane_backup_last_duration_seconds gauge",
            f"backplane_backup_last_duration_seconds {stamp['stop'] - stamp['start']}",
            "# HELP backplane_backup_last_size_bytes What the newest good backup added to the repository.",
            "# TYPE backplane_backup_last_size_bytes gauge",
            f"backplane_backup_last_size_bytes {added}",
        ]
    return "\n".join(lines + [""])


class Source:
    """Runs the info command at most once per `cache_s`, for every scrape in between."""

    def __init__(self, command, schedule_s, cache_s):
        self.command, self.schedule_s, self.cache_s = command, schedule_s, cache_s
        self.lock = threading.Lock()
        self.text, self.at = None, 0.0

    def read(self):
        with self.lock:
            if self.text is None or time.monotonic() - self.at >= self.cache_s:
                try:
                    # Bytes: an answer read with the wrong key is not text.
                    done = subprocess.run(self.command, capture_output=True, timeout=60)
                    answer = done.stdout.decode(errors="replace") if done.returncode == 0 else None
                    if answer is None:
                        why = done.stderr.decode(errors="replace").strip()[:300]
                        print(f"[backup-metrics] {self.command[0]} exited {done.returncode}: {why}",
                              file=sys.stderr, flush=True)
                except (OSError, subprocess.TimeoutExpired) as error:
                    print(f"[backup-metrics] {self.command[0]}: {error}", file=sys.stderr, flush=True)
                    answer = None
                self.text, self.at = metrics(answer, self.schedule_s), time.monotonic()
            return self.text


def serve(source, host, port):
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path == "/metrics":
                body, kind, status = source.read().encode(), CONTENT_TYPE, 200
            elif self.path == "/healthz":
                body, kind, status = b"ok\n", "text/plain", 200
            else:
                body, kind, status = b"not found: /metrics and /healthz are served\n", "text/plain", 404
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):  # one line per scrape would drown the container's log
            pass

    server = ThreadingHTTPServer((host, port), Handler)
    print(f"[backup-metrics] serving /metrics on {host}:{port}", file=sys.stderr, flush=True)
    server.serve_forever()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=int(os.environ.get("BACKUP_METRICS_PORT", "9188")))
    parser.add_argument("--host", default="0.0.0.0")
    parser.add_argument("--once", action="store_true", help="print the metrics once and exit")
    parser.add_argument("--probe", action="store_true", help="exit 0 when a running one answers")
    parser.add_argument("command", nargs="*", help="the info command (default: pgbackrest --output=json info)")
    args = parser.parse_args()
    if args.probe:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{args.port}/healthz", timeout=3) as answer:
                sys.exit(0 if answer.status == 200 else 1)
        except OSError:
            sys.exit(1)
    schedule_s = int(os.environ.get("BACKUP_EVERY_S", "3600"))
    source = Source(args.command or ["pgbackrest", "--output=json", "info"], schedule_s,
                    float(os.environ.get("CACHE_S", "10")))
    if args.once:
        sys.stdout.write(source.read())
        return
    serve(source, args.host, args.port)


if __name__ == "__main__":
    main()
