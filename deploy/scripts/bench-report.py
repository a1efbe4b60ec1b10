#!/usr/bin/env python3
"""Writes the benchmark figures of docs/benchmarks.md from docs/bench/*.json, and a few charts.

    deploy/scripts/bench-report.py             # rewrite the tables, redraw docs/bench/*.png
    deploy/scripts/bench-report.py --check     # exit 1 if a table differs from its JSON
    deploy/scripts/bench-report.py --no-charts # the tables only (no matplotlib needed)

Each docs/bench/NAME.json (written by deploy/scripts/bench-json.py after a run, format in its
docstring) becomes the text between `<!-- bench:NAME -->` and `<!-- /bench:NAME -->` in
docs/benchmarks.md: a line saying when, where and with what command it was measured, then its
tables. Everything outside the markers is left as it is. --check compares that text only (the
charts are not compared) and names every block that differs, has no JSON, or has no markers.

Charts (matplotlib, from deploy/bench-requirements.txt; skipped with a warning when it is
missing): gateway-shares.png, broker-shares.png, navup-cpu.png, auth-logins.png, and
navup-latency.png when navup.json has a per-second series.
"""

import argparse
import glob
import json
import os
import re
import statistics
import sys
import textwrap

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BLOCK = re.compile(r"<!-- bench:(?P<name>[\w-]+) -->\n(?P<body>.*?)<!-- /bench:(?P=name) -->", re.S)


def cell(value):
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        return format(value, ",")
    return str(value).replace("|", "\\|")


def wrap(text):
    return textwrap.fill(text, width=100, break_long_words=False, break_on_hyphens=False)


def render(result):
    """The Markdown between a benchmark's markers."""
    said = ["Measured %s with `%s`" % (result["date"], result["command"])]
    if result.get("rounds"):
        said.append("%d rounds (medians and their range)" % result["rounds"])
    if result.get("machine"):
        said.append("on %s" % result["machine"])
    if result.get("commit"):
        said.append("at `%s`" % result["commit"])
    lines = ["", wrap(", ".join(said) + "."), ""]
    for table in result["tables"]:
        if table.get("title"):
            lines += [wrap("*%s*" % table["title"]), ""]
        # A column with nothing in it (a figure the run did not record) is left out.
        columns = [c for c in table["columns"] if any(cell(row.get(c["key"])) for row in table["rows"])]
        lines.append("| " + " | ".join(c["title"] for c in columns) + " |")
        lines.append("|" + "|".join("---:" if c.get("align") == "right" else "---" for c in columns) + "|")
        for row in table["rows"]:
            lines.append("| " + " | ".join(cell(row.get(c["key"])) for c in columns) + " |")
        lines.append("")
    for note in result.get("notes", []):
        lines += [wrap(note), ""]
    return "\n".join(lines)


def load(folder):
    results = {}
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        with open(path) as handle:
            result = json.load(handle)
        name = os.path.basename(path)[:-5]
        if result.get("bench") != name:
            raise SystemExit("bench-report.py: %s says bench %r" % (path, result.get("bench")))
        results[name] = result
    return results


# ---------------------------------------------------------------------------------------------
# Charts


def charts(results, folder):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("bench-report.py: matplotlib is missing (pip install -r deploy/bench-requirements.txt); no charts",
              file=sys.stderr)
        return
    plt.rcParams.update({"font.size": 8, "figure.dpi": 100, "savefig.dpi": 100})

    def save(figure, name):
        figure.tight_layout()
        figure.savefig(os.path.join(folder, name))
        plt.close(figure)

    def shares(name, key, file, title, reference, label):
        series = results.get(name, {}).get("series", {}).get(key)
        if not series:
            return
        items = [(label(case), values) for case, values in series.items() if values and case != "loadgen-healthz"]
        figure, axes = plt.subplots(figsize=(6.4, 0.45 * len(items) + 1.0))
        for y, (case, values) in enumerate(items):
            middle = statistics.median(values)
            axes.barh(y, middle, color="#4C72B0")
            axes.plot(values, [y] * len(values), "k.", markersize=4)
            axes.text(middle + 1, y, "%g%%" % middle, va="center")
        axes.set_yticks(range(len(items)), [case for case, _ in items])
        axes.invert_yaxis()
        axes.set_xlabel("%% of %s in the same round (bar: median; dots: rounds)" % reference)
        axes.set_title("%s, %s" % (title, results[name]["date"]))
        save(figure, file)

    shares("gateway", "shares_of_hello", "gateway-shares.png", "Gateway paths against Hummingbird's hello-world",
           "hello-world's rate", lambda t: {"healthz": "/healthz", "currencies": "/v1/currencies",
                                            "me": "/v1/me"}.get(t, t))
    shares("broker", "shares_of_raw", "broker-shares.png", "Round trips through the broker, 100 in flight",
           "raw DEALER-ROUTER's rate",
           lambda c: re.sub(r" \(concurrency \d+, handlers start on the I/O thread\)", ", handlers on its I/O thread",
                            re.sub(r" \(concurrency \d+\)|, 100 in flight", "", c)))

    navup = results.get("navup", {}).get("series", {})
    if navup.get("cpu_per_request"):
        cpu = navup["cpu_per_request"]
        figure, axes = plt.subplots(figsize=(6.4, 2.4))
        left = 0
        for process, micros in cpu.items():
            axes.barh(0, micros, left=left, label="%s %g µs" % (process, micros))
            left += micros
        axes.set_yticks([])
        axes.set_xlabel("CPU µs per HTTP request (%g in all)" % left)
        axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.45), ncol=len(cpu), frameon=False)
        axes.set_title("NavUP: CPU per request by process, %s" % results["navup"]["date"])
        save(figure, "navup-cpu.png")
    if navup.get("per_second"):
        points = navup["per_second"]
        figure, axes = plt.subplots(figsize=(6.4, 2.8))
        for key in ("p50", "p99"):
            if key in points:
                axes.plot(points["t"], points[key], label=key, linewidth=1)
        axes.set_xlabel("second of the run")
        axes.set_ylabel("ms")
        axes.legend(frameon=False)
        axes.set_title("NavUP latency per second, %s" % results["navup"]["date"])
        save(figure, "navup-latency.png")

    logins = results.get("auth", {}).get("series", {}).get("logins")
    if logins:
        figure, axes = plt.subplots(figsize=(6.4, 2.8))
        axes.plot(logins["clients"], logins["rate"], "o-", label="logins/s")
        if logins.get("bound"):
            axes.axhline(logins["bound"], color="grey", linestyle="--", label="Argon2id bound %g/s" % logins["bound"])
        axes.set_xscale("log", base=2)
        axes.set_xticks(logins["clients"], [str(c) for c in logins["clients"]])
        axes.set_xlabel("clients (closed loop)")
        axes.set_ylim(bottom=0)
        axes.legend(frameon=False, loc="lower right")
        axes.set_title("Logins against the hashing bound, %s" % results["auth"]["date"])
        save(figure, "auth-logins.png")


# ---------------------------------------------------------------------------------------------


def main(argv=None):
    parser = argparse.ArgumentParser(description="docs/benchmarks.md's tables from docs/bench/*.json")
    parser.add_argument("--check", action="store_true", help="fail if a table differs from its JSON")
    parser.add_argument("--no-charts", action="store_true")
    parser.add_argument("--doc", default=os.path.join(REPO, "docs", "benchmarks.md"))
    parser.add_argument("--dir", default=os.path.join(REPO, "docs", "bench"))
    args = parser.parse_args(argv)

    results = load(args.dir)
    with open(args.doc) as handle:
        doc = handle.read()
    found = [match["name"] for match in BLOCK.finditer(doc)]
    problems = []
    for name in sorted(set(found) - set(results)):
        problems.append("%s: docs/benchmarks.md has its markers but docs/bench/%s.json is missing" % (name, name))
    for name in sorted(set(results) - set(found)):
        problems.append("%s: docs/bench/%s.json has no <!-- bench:%s --> ... <!-- /bench:%s --> in "
                        "docs/benchmarks.md" % (name, name, name, name))
    for name in sorted({n for n in found if found.count(n) > 1}):
        problems.append("%s: its markers appear more than once" % name)

    def replace(match):
        name = match["name"]
        if name not in results:
            return match.group(0)
        return "<!-- bench:%s -->%s<!-- /bench:%s -->" % (name, render(results[name]), name)

    new = BLOCK.sub(replace, doc)
    if args.check:
        stale = [m["name"] for m, n in zip(BLOCK.finditer(doc), BLOCK.finditer(new)) if m.group(0) != n.group(0)]
        problems += ["%s: the table in docs/benchmarks.md differs from docs/bench/%s.json" % (name, name)
                     for name in stale]
        if problems:
            print("bench-report.py --check: docs/benchmarks.md is not what docs/bench/*.json gives:", file=sys.stderr)
            for problem in problems:
                print("  " + problem, file=sys.stderr)
            print("run deploy/scripts/bench-report.py to rewrite the tables", file=sys.stderr)
            return 1
        print("bench-report.py --check: %d tables match docs/bench/*.json" % len(found))
        return 0

    if new != doc:
        with open(args.doc, "w") as handle:
            handle.write(new)
    if not args.no_charts:
        charts(results, args.dir)
    for problem in problems:
        print("bench-report.py: " + problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
