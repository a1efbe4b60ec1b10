"""deploy/postgres/backup-metrics.py turns `pgbackrest --output=json info` into the series the
BackplaneBackupStale alert reads: the newest good backup per type (failed ones left out), none
yet, an unreadable repository; and it serves them over HTTP with Prometheus's content type.
(The alerts step scrapes it against a real pgBackRest repository.)"""
import json
import pathlib
import socket
import subprocess
import sys
import time
import urllib.request

import script_module

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "deploy/postgres/backup-metrics.py"
exporter = script_module.load(SCRIPT)


def backup(label, kind, start, stop, delta=1000, error=False):
    return {"label": label, "type": kind, "error": error, "timestamp": {"start": start, "stop": stop},
            "info": {"repository": {"delta": delta, "size": delta}}}


def series(text):
    """name{labels} -> value, of the exposition text."""
    return {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1])
            for line in text.splitlines() if line and not line.startswith("#")}


def test_the_newest_good_backup_of_each_type():
    info = [{"name": "backplane", "status": {"code": 0, "message": "ok"}, "backup": [
        backup("F1", "full", 1000, 1100, delta=5000),
        backup("F1_I1", "incr", 2000, 2030, delta=300),
        backup("F1_I2", "incr", 3000, 3060, delta=700, error=True),  # failed: not a success
    ]}]
    got = series(exporter.metrics(json.dumps(info), 3600))
    assert got["backplane_backup_info_up"] == 1
    assert got['backplane_backup_last_success_timestamp_seconds{type="full"}'] == 1100
    assert got['backplane_backup_last_success_timestamp_seconds{type="incr"}'] == 2030
    assert got['backplane_backup_last_success_timestamp_seconds{type="diff"}'] == 0
    assert got["backplane_backup_last_duration_seconds"] == 30
    assert got["backplane_backup_last_size_bytes"] == 300
    assert got["backplane_backup_count"] == 2
    assert got["backplane_backup_schedule_seconds"] == 3600


def test_a_stanza_without_a_backup_reads_as_never():
    info = [{"name": "backplane", "status": {"code": 2, "message": "no valid backups"}, "backup": []}]
    got = series(exporter.metrics(json.dumps(info), 600))
    assert got["backplane_backup_info_up"] == 1
    assert all(got[f'backplane_backup_last_success_timestamp_seconds{{type="{t}"}}'] == 0 for t in exporter.TYPES)
    assert "backplane_backup_last_duration_seconds" not in got


def test_an_unreadable_repository_is_down_with_no_timestamps():
    for answer in (None, "not json", "[]",
                   json.dumps([{"name": "backplane", "status": {"code": 1, "message": "missing stanza path"}}])):
        got = series(exporter.metrics(answer, 3600))
        assert got["backplane_backup_info_up"] == 0, answer
        assert not any(name.startswith("backplane_backup_last") for name in got), answer


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_served_over_http_from_the_command_each_scrape(tmp_path):
    answer = tmp_path / "info.json"
    answer.write_text(json.dumps([{"name": "backplane", "status": {"code": 0}, "backup": [
        backup("F1", "full", 50, 80)]}]))
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, str(SCRIPT), "--host", "127.0.0.1", "--port", str(port), "--", "cat", str(answer)],
        env={"BACKUP_EVERY_S": "900", "CACHE_S": "0", "PATH": "/usr/bin:/bin"}, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while subprocess.run([sys.executable, str(SCRIPT), "--probe", "--port", str(port)]).returncode != 0:
            assert time.monotonic() < deadline, "the exporter did not answer /healthz"
            time.sleep(0.1)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as reply:
            assert reply.headers["Content-Type"].startswith("text/plain; version=0.0.4")
            got = series(reply.read().decode())
        assert got['backplane_backup_last_success_timestamp_seconds{type="full"}'] == 80
        assert got["backplane_backup_schedule_seconds"] == 900
        answer.write_text("broken")  # read again at the next scrape: CACHE_S=0
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as reply:
            assert series(reply.read().decode())["backplane_backup_info_up"] == 0
    finally:
        server.terminate()
        server.wait(timeout=10)
