#!/usr/bin/env python3
"""Runs the Swift tests in several processes at once, each with a PostgreSQL of its own.

    python3 deploy/scripts/swift-test-shards.py --bin XCTEST --workers N --log FILE
        [--filter REGEX] [--quiet-suites REGEX] [--durations FILE] [--save-durations]

The suites share nothing but the machine: every worker starts its own throwaway PostgreSQL
(deploy/scripts/pg.sh, PG_FAST) and runs the test binary (Swift Testing, one test at a time
inside it, as `swift test` would with a width of 1) for one unit after another from a queue,
longest first. A unit is a test target, or one suite of a target named by --split. The suites
that measure round trips on a quiet machine (--quiet-suites) run last, alone.

Why a cluster per worker and not a database per suite: the event-log readers wait for every
older transaction in the cluster (transaction ids are cluster-wide), so suites sharing one
server hold each other back however their databases are named.

The output of each unit is printed whole when it ends, so units do not interleave; FILE gets
all of it. Exit status 0 when every unit passed; the last line is "N passed, N failed".
"""
import argparse
import collections
import json
import os
import pathlib
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "deploy/scripts"
SUMMARY = re.compile(r"Test run with (\d+) tests? (?:in \d+ suites? )?(passed|failed)")
ISSUES = re.compile(r"Test run with (\d+) tests? (?:in \d+ suites? )?failed after [\d.]+ seconds with (\d+) issues?")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def list_tests(binary, filter_regex):
    out = subprocess.run([binary, "--testing-library", "swift-testing", "--list-tests"],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    if out.returncode != 0:
        raise SystemExit(f"swift-test-shards: {binary} --list-tests failed:\n{out.stderr[-2000:]}")
    ids = [line.strip() for line in out.stdout.splitlines() if "/" in line]
    if filter_regex:
        pattern = re.compile(filter_regex)
        ids = [i for i in ids if pattern.search(i)]
    return ids


def units_of(ids, split, quiet):
    """{unit regex: test count}, in two lists: the parallel units and the quiet ones."""
    parallel, alone = collections.Counter(), collections.Counter()
    for test_id in ids:
        suite_path = test_id.split("/")[0]  # Module.Type (nested types: Module.Outer.Inner)
        module = suite_path.split(".")[0]
        if quiet and re.search(quiet, test_id):
            alone[".".join(suite_path.split(".")[:2])] += 1
        else:
            parallel[".".join(suite_path.split(".")[:2]) if module in split else module] += 1
    return parallel, alone


def unit_filter(unit):
    # Swift Testing matches --filter against the test's id, "Module.Type/test()"
    return "^" + re.escape(unit) + r"[./]"


class Database:
    """A throwaway PostgreSQL for one worker."""

    def __init__(self, parent):
        self.dir = tempfile.mkdtemp(prefix="test-pg-", dir=parent)
        pathlib.Path(self.dir, "owner.pid").write_text(f"{os.getpid()}\n")
        os.chmod(self.dir, 0o755)
        port = subprocess.run(["bash", "-c", f'source "{SCRIPTS}/lib.sh"; free_port'],
                              capture_output=True, text=True, check=True).stdout.strip()
        env = dict(os.environ, PG_FAST="1")
        started = subprocess.run([str(SCRIPTS / "pg.sh"), "start", self.dir, port], env=env,
                                 capture_output=True, text=True)
        if started.returncode != 0:
            raise RuntimeError(f"pg.sh start {self.dir} {port} failed: {started.stderr[-1000:]}")
        self.url = subprocess.run([str(SCRIPTS / "pg.sh"), "url", self.dir, port],
                                  capture_output=True, text=True, check=True).stdout.strip()

    def stop(self):
        subprocess.run([str(SCRIPTS / "pg.sh"), "stop", self.dir], capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)


class Runner:
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.log = open(args.log, "w")
        self.results = {}  # unit -> (ok, seconds, passed, failed)
        self.deadline = time.monotonic() + args.timeout
        self.databases = []
        self.children = set()

    def emit(self, text):
        with self.lock:
            sys.stdout.write(text)
            sys.stdout.flush()
            self.log.write(ANSI.sub("", text))
            self.log.flush()

    def run_unit(self, unit, database, count, skip=""):
        started = time.monotonic()
        env = dict(os.environ, DATABASE_URL=database.url)
        command = [self.args.bin, "--testing-library", "swift-testing",
                   "--experimental-maximum-parallelization-width", "1", "--filter", unit_filter(unit)]
        if skip:
            command += ["--skip", skip]
        command += self.args.extra
        remaining = max(1, self.deadline - time.monotonic())
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, errors="replace",
                                   start_new_session=True)
        with self.lock:
            self.children.add(process)
        try:
            output, _ = process.communicate(timeout=remaining)
            status = process.returncode
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
            output, _ = process.communicate()
            output += f"\nswift-test-shards: {unit} stopped: the run's {self.args.timeout} s were over\n"
            status = 124
        finally:
            with self.lock:
                self.children.discard(process)
        seconds = time.monotonic() - started
        plain = ANSI.sub("", output)
        match = SUMMARY.search(plain)
        total = int(match.group(1)) if match else 0
        failed = 0
        if status != 0:
            failed = max(1, len(re.findall(r"^✘ Test (?!run with ).* failed after", plain, re.M)))
        passed = max(0, total - failed) if match else 0
        ok = status == 0 and match is not None and total > 0
        self.results[unit] = (ok, seconds, passed, failed if not ok else 0, count)
        header = f"── {unit}: {'passed' if ok else 'FAILED'} ({passed} passed, {failed} failed, {seconds:.0f} s)\n"
        self.emit(f"── {unit} (DATABASE_URL of worker {self.databases.index(database) + 1})\n{output}{header}")

    def worker(self, work, database):
        while True:
            try:
                unit, count = work.get_nowait()
            except queue.Empty:
                return
            if time.monotonic() > self.deadline:
                self.results[unit] = (False, 0, 0, count, count)
                self.emit(f"── {unit}: not run: the run's {self.args.timeout} s were over\n")
                continue
            self.run_unit(unit, database, count, skip=self.args.quiet_suites)

    def run(self, parallel, alone, durations):
        def weight(item):
            unit, count = item
            return durations.get(unit, count * 2.0)

        order = sorted(parallel.items(), key=weight, reverse=True)
        workers = max(1, min(self.args.workers, len(order)))
        data_dir = ROOT / ".data"
        data_dir.mkdir(exist_ok=True)
        began = time.monotonic()
        try:
            self.databases = [Database(str(data_dir)) for _ in range(max(workers, 1 if alone else 0))]
            self.emit(f"swift-test-shards: {sum(parallel.values())} tests in {len(order)} units on {workers} "
                      f"workers, each with its own PostgreSQL; then {sum(alone.values())} alone\n")
            work = queue.Queue()
            for item in order:
                work.put(item)
            threads = [threading.Thread(target=self.worker, args=(work, self.databases[i]))
                       for i in range(workers)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            for unit, count in sorted(alone.items()):
                self.run_unit(unit, self.databases[0], count)
        finally:
            for process in list(self.children):
                try:
                    os.killpg(process.pid, 9)
                except ProcessLookupError:
                    pass
            for database in self.databases:
                database.stop()
        wall = time.monotonic() - began
        passed = sum(r[2] for r in self.results.values())
        failed = sum(r[3] for r in self.results.values())
        bad = sorted(u for u, r in self.results.items() if not r[0])
        busiest = sorted(self.results.items(), key=lambda kv: kv[1][1], reverse=True)[:5]
        self.emit("swift-test-shards: slowest units: "
                  + ", ".join(f"{u} {r[1]:.0f} s" for u, r in busiest) + "\n")
        if bad:
            self.emit("swift-test-shards: failed units: " + ", ".join(bad) + "\n")
        self.emit(f"swift-test-shards: {len(self.results)} units in {wall:.0f} s\n")
        self.emit(f"{passed} passed, {failed} failed\n")
        return 0 if not bad else 1


def stop_on_signal(signum, _frame):
    # SIGTERM (a timeout, a CI runner) ends the run through main's clean-up: the test processes'
    # groups are killed and the databases stopped and removed.
    raise SystemExit(128 + signum)


def main():
    signal.signal(signal.SIGTERM, stop_on_signal)
    signal.signal(signal.SIGHUP, stop_on_signal)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="the test binary (BackplanePackageTests.xctest)")
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--log", required=True)
    parser.add_argument("--filter", default="", help="only the tests whose id matches")
    parser.add_argument("--split", default="", help="targets whose suites are units of their own (comma-separated)")
    parser.add_argument("--quiet-suites", default="", help="tests (id regex) that run last, alone")
    parser.add_argument("--durations", default=str(ROOT / "Tests/durations.json"),
                        help="seconds per unit from an earlier run: the queue starts with the longest")
    parser.add_argument("--save-durations", action="store_true", help="write this run's seconds per unit there")
    parser.add_argument("--timeout", type=int, default=2700, help="seconds for the whole run")
    args, extra = parser.parse_known_args()
    args.extra = [a for a in extra if a != "--"]

    ids = list_tests(args.bin, args.filter)
    if not ids:
        print("swift-test-shards: no test matches", file=sys.stderr)
        print("0 passed, 0 failed")
        return 1
    split = {s for s in args.split.split(",") if s}
    parallel, alone = units_of(ids, split, args.quiet_suites)
    try:
        durations = json.loads(pathlib.Path(args.durations).read_text())
    except (OSError, ValueError):
        durations = {}
    runner = Runner(args)
    status = runner.run(parallel, alone, durations)
    if args.save_durations:
        measured = {unit: round(r[1], 1) for unit, r in sorted(runner.results.items()) if r[0]}
        pathlib.Path(args.durations).write_text(json.dumps(measured, indent=1, sort_keys=True) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
