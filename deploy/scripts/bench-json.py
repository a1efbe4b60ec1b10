#!/usr/bin/env python3
"""Turns a benchmark's printed output into its result file, docs/bench/NAME.json.

    deploy/scripts/bench-json.py NAME [--input FILE]... [--loadgen-json FILE] [--command CMD]
                                 [--rounds N] [--set KEY=VALUE]... [--out DIR] [--print]

NAME picks the parser (see PARSERS): the tool's output is read from each --input FILE, or from
standard input, and --loadgen-json is the file `loadgen ... --json PATH` wrote, used instead of
the printed lines where the tool has it. The result goes to DIR/NAME.json (DIR: --out, else
$BENCH_RESULTS, else docs/bench); BENCH_RESULTS=off writes nothing (a smoke run). --print writes
it to standard output instead.

A result file (docs/bench/README.md says the same for readers):

    {"bench": "gateway", "command": "make bench-gateway", "date": "2026-12-04",
     "commit": "bec4ae8", "machine": "2 cores, 24 GiB, Debian GNU/Linux 12 (bookworm)",
     "rounds": 3,
     "tables": [{"title": "...", "columns": [{"key": "target", "title": "target"},
                                             {"key": "rate", "title": "requests/s", "align": "right"}],
                 "rows": [{"target": "/healthz", "rate": 16038}, ...]}],
     "notes": ["..."],
     "series": {"...": ...}}

Cells are numbers or text; a missing key is an empty cell. `series` holds what the charts of
bench-report.py draw (shares by round, CPU per process, per-second latencies). The parsers read
the lines the tools print today and fail with a message naming what they did not find.
"""

import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import sys

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


class ParseError(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# Small helpers


def number(text):
    """'6,262' -> 6262, '2.40' -> 2.4, '-' or '' -> None."""
    text = text.strip().replace(",", "")
    if text in ("", "-"):
        return None
    try:
        return int(text)
    except ValueError:
        return float(text)


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def span(values, digits=0, suffix=""):
    """The range of values as text: '37-41', or '37' when they agree."""
    values = [v for v in values if v is not None]
    if not values:
        return None
    low, high = min(values), max(values)
    fmt = "{:,.%df}" % digits
    if fmt.format(low) == fmt.format(high):
        return fmt.format(low) + suffix
    return fmt.format(low) + "-" + fmt.format(high) + suffix


def percent(value):
    """A share as text: '46%', or '7.5%' for a median between two whole rounds."""
    return "%d%%" % value if float(value).is_integer() else "%.1f%%" % value


def col(key, title, right=False):
    column = {"key": key, "title": title}
    if right:
        column["align"] = "right"
    return column


def table(columns, rows, title=None):
    result = {"columns": columns, "rows": rows}
    if title:
        result["title"] = title
    return result


def need(found, what):
    if not found:
        raise ParseError("no %s in the output" % what)
    return found


# ---------------------------------------------------------------------------------------------
# loadgen's shared formats

# AppScenarios.table: request, count, per s, p50 ms, p99 ms, max ms, errors, statuses.
APP_ROW = re.compile(
    r"^(?P<name>\S.*?)\s+(?P<count>\d+)\s+(?P<rate>[\d.]+)\s+(?P<p50>[\d.]+)\s+(?P<p99>[\d.]+)"
    r"\s+(?P<max>[\d.]+)\s+(?P<errors>\d+)\s{2}(?P<statuses>.*)$"
)


def app_rows_from_text(text):
    rows = []
    for line in text.splitlines():
        match = APP_ROW.match(line.rstrip())
        if match and not line.startswith("request "):
            rows.append({
                "request": match["name"], "count": int(match["count"]), "rate": number(match["rate"]),
                "p50": number(match["p50"]), "p99": number(match["p99"]), "max": number(match["max"]),
                "errors": int(match["errors"]), "statuses": match["statuses"].strip(),
            })
    return rows


def app_rows_from_json(path):
    with open(path) as handle:
        report = json.load(handle)
    seconds = report.get("seconds") or 1
    rows = []
    for item in report["requests"]:
        statuses = " ".join(
            "%s:%s" % ("none" if key == "0" else key, value)
            for key, value in sorted(item.get("statuses", {}).items(), key=lambda kv: int(kv[0])))
        rows.append({
            "request": item["name"], "count": item["count"], "rate": round(item["count"] / seconds, 1),
            "p50": round(item["p50Micros"] / 1000, 1), "p99": round(item["p99Micros"] / 1000, 1),
            "max": round(item["maxMicros"] / 1000, 1), "errors": item["errors"], "statuses": statuses,
        })
    return rows


APP_COLUMNS = [col("request", "request"), col("rate", "per s", True), col("p50", "p50 ms", True),
               col("p99", "p99 ms", True), col("max", "max ms", True), col("errors", "errors", True),
               col("statuses", "statuses")]

# Report.table (broker with one round, orders, gifts): case, rate, p50 µs, p99 µs, max µs[, hub CPU].
REPORT_ROW = re.compile(
    r"^(?P<name>\S.*?)\s+(?P<rate>\d+)\s+(?P<p50>\d+|-)\s+(?P<p99>\d+|-)\s+(?P<max>\d+|-)(?:\s+(?P<cpu>[\d.]+|-))?$")


def report_rows_from_text(text):
    rows = []
    for line in text.splitlines():
        line = line.rstrip()
        if line.startswith("case ") or line.startswith("---"):
            continue
        match = REPORT_ROW.match(line)
        if match:
            rows.append({"case": match["name"], "rate": int(match["rate"]), "p50": number(match["p50"]),
                         "p99": number(match["p99"]), "max": number(match["max"]),
                         "cpu": number(match["cpu"] or "")})
    return rows


def report_rows_from_json(path):
    with open(path) as handle:
        items = json.load(handle)
    return [{"case": item["case"], "rate": item["roundTripsPerSecond"], "p50": item["p50Micros"],
             "p99": item["p99Micros"], "max": item["maxMicros"], "cpu": item.get("hubCPUMicrosPerTrip")}
            for item in items]


def open_loop_table(rows):
    """Orders and gifts: latency in ms from loadgen's microseconds; '(N failed)' read off the name."""
    out = []
    for row in rows:
        failed = re.search(r" \((\d+) failed\)$", row["case"])
        out.append({"case": re.sub(r" \(\d+ failed\)$", "", row["case"]), "rate": row["rate"],
                    "p50": ms(row["p50"]), "p99": ms(row["p99"]), "max": ms(row["max"]),
                    "failed": int(failed.group(1)) if failed else 0})
    return table([col("case", "request"), col("rate", "answered/s", True), col("p50", "p50 ms", True),
                  col("p99", "p99 ms", True), col("max", "max ms", True), col("failed", "failed", True)], out)


def ms(micros):
    return None if micros is None else round(micros / 1000, 1)


# ---------------------------------------------------------------------------------------------
# Parsers: each takes (text, args) and returns the part of the result it knows.


def parse_broker(text, args):
    """`loadgen broker --rounds N --json PATH`: the JSON (every round, in order) or one round's table."""
    rows = report_rows_from_json(args.loadgen_json) if args.loadgen_json else report_rows_from_text(text)
    need(rows, "broker cases")
    names = [row["case"] for row in rows]
    per_round = names.index(names[0], 1) if names.count(names[0]) > 1 else len(names)
    rounds = [rows[i:i + per_round] for i in range(0, len(rows), per_round)]
    if any([r["case"] for r in chunk] != names[:per_round] for chunk in rounds):
        raise ParseError("the rounds ran different cases")
    raw_index = next((i for i, name in enumerate(names[:per_round])
                      if name.startswith("raw DEALER-ROUTER (no broker)") and name.endswith("100 in flight")), None)
    out, shares_by_case = [], {}
    for index, name in enumerate(names[:per_round]):
        runs = [chunk[index] for chunk in rounds]
        row = {"case": name, "rate": round(median([r["rate"] for r in runs])),
               "p50": round(median([r["p50"] for r in runs])) if runs[0]["max"] else None,
               "p99": round(median([r["p99"] for r in runs])) if runs[0]["max"] else None,
               "cpu": round(median([r["cpu"] for r in runs]), 2) if runs[0]["cpu"] is not None else None}
        if raw_index is not None and name.endswith("100 in flight"):
            shares = [round(100 * chunk[index]["rate"] / chunk[raw_index]["rate"]) for chunk in rounds]
            row["share"] = percent(median(shares))
            row["range"] = span(shares, suffix="%") if len(shares) > 1 and index != raw_index else None
            if index != raw_index:
                shares_by_case[name] = shares
        out.append(row)
    return {
        "rounds": len(rounds),
        "tables": [table([col("case", "case (64-byte payload)"), col("rate", "round trips/s", True),
                          col("p50", "p50 µs", True), col("p99", "p99 µs", True),
                          col("share", "share of raw", True), col("range", "rounds", True),
                          col("cpu", "hub CPU µs/trip", True)], out)],
        "series": {"shares_of_raw": shares_by_case},
    }


def wrk_ms(text):
    """wrk's latency ('850.00us', '2.78ms', '1.02s') in milliseconds; None if it is not one."""
    match = re.match(r"^([\d.]+)(us|ms|s)$", text.strip())
    if not match:
        return None
    return float(match.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[match.group(2)]


GATEWAY_LABELS = {"hello": "hello-world (`GET /hello`)", "healthz": "`GET /healthz`",
                  "currencies": "`GET /v1/currencies`", "me": "`GET /v1/me`",
                  "orders": "`GET /v1/orders`", "drinks": "`POST /v1/me/drinks`, a new drink each",
                  "loadgen-healthz": "`GET /healthz` sent by `loadgen get`"}


def parse_gateway(text, args):
    """deploy/scripts/bench-gateway.sh: one table per round, then the half-rate `loadgen get` line."""
    rounds, current = {}, None
    for line in text.splitlines():
        header = re.search(r"round (\d+) of (\d+), wrk", line)
        if header:
            current = rounds.setdefault(int(header.group(1)), {})
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("| ") else []
        if current is not None and len(cells) == 7 and cells[0] not in ("target",) and not cells[0].startswith("-"):
            cpu = {}
            for part in filter(None, (p.strip() for p in cells[6].split(","))):
                name, _, value = part.rpartition(" ")
                cpu[name] = number(value)
            current[cells[0]] = {"rate": number(cells[1]), "p50": cells[2], "p99": cells[3],
                                 "errors": number(cells[4]), "share": number(cells[5].rstrip("%")), "cpu": cpu}
    need(rounds, "round tables")
    order = list(rounds[min(rounds)].keys())
    rows, series = [], {}
    for target in order:
        runs = [rounds[r][target] for r in sorted(rounds) if target in rounds[r]]
        shares = [run["share"] for run in runs]
        processes = []
        for process in runs[0]["cpu"]:
            values = [run["cpu"].get(process) for run in runs]
            processes.append("%s %s" % (process, span(values, 1 if process == "loadgen" else 0)))
        p99s = [wrk_ms(run["p99"]) for run in runs]
        rows.append({"target": GATEWAY_LABELS.get(target, target), "share": percent(median(shares)),
                     "range": span(shares, suffix="%") if len(shares) > 1 and target != "hello" else None,
                     "rate": span([run["rate"] for run in runs]), "p99": span(p99s, 2),
                     "errors": sum(run["errors"] or 0 for run in runs), "cpu": ", ".join(processes)})
        if target != "hello":
            series[target] = shares
    beside = [(rounds[r]["healthz"]["rate"], rounds[r]["loadgen-healthz"]["rate"],
               rounds[r]["loadgen-healthz"]["cpu"].get("loadgen"))
              for r in sorted(rounds) if "healthz" in rounds[r] and "loadgen-healthz" in rounds[r]]
    result = {
        "rounds": len(rounds),
        "tables": [table([col("target", "target"), col("share", "share of hello-world", True),
                          col("range", "rounds", True), col("rate", "requests/s", True),
                          col("p99", "p99 ms", True), col("errors", "non-2xx", True),
                          col("cpu", "CPU µs per request")], rows,
                         "Closed loop (wrk, 64 connections); each share against its own round's hello-world")],
        "series": {"shares_of_hello": series},
    }
    if beside:
        result["tables"].append(table(
            [col("what", "the load generator beside wrk on `/healthz`"), col("share", "loadgen ÷ wrk, by round", True),
             col("cpu", "loadgen CPU µs per request", True)],
            [{"what": "`loadgen get`, closed loop, as many connections as wrk",
              "share": span([100 * loadgen / wrk for wrk, loadgen, _ in beside], suffix="%"),
              "cpu": span([cpu for _, _, cpu in beside], 1)}]))
    half = re.search(r"^get (\S+), (\d+)/s \(open loop, at most (\d+) in flight\), [\d.]+ s: requests (\d+) rate (\d+) "
                     r"p50_ms ([\d.]+) p99_ms ([\d.]+) max_ms ([\d.]+) non200 (\d+)", text, re.M)
    if half:
        result["tables"].append(table(
            [col("what", "request"), col("rate", "requests/s", True), col("p50", "p50 ms", True),
             col("p99", "p99 ms", True), col("max", "max ms", True), col("errors", "non-200", True)],
            [{"what": "`GET /v1/currencies`, open loop at half the median closed-loop rate, at most %s open"
                      % half.group(3),
              "rate": int(half.group(5)), "p50": number(half.group(6)), "p99": number(half.group(7)),
              "max": number(half.group(8)), "errors": int(half.group(9))}],
            "Latency at a fixed rate, from when each request was due"))
    return result


PROCESS_ROW = re.compile(
    r"^(?P<name>[\w-]+)\s+(?P<cpu_s>[\d.]+)\s+(?P<per>\d+)\s+(?P<a>\d+) / (?P<b>\d+) / (?P<c>\d+)$")


def parse_navup(text, args):
    """deploy/scripts/cpu-per-request.sh: the CPU table of the window, then loadgen's table."""
    head = need(re.search(r"\((\S+) (.*?), (\d+) requests in (\d+) s = (\d+)/s\)", text), "CPU table header")
    processes = []
    for line in text.splitlines():
        match = PROCESS_ROW.match(line.strip())
        if match:
            processes.append({"process": match["name"], "cpu": int(match["per"]),
                              "rss": "%s / %s / %s" % (match["a"], match["b"], match["c"])})
    need(processes, "process rows")
    processes.append({"process": "all of them", "cpu": sum(p["cpu"] for p in processes)})
    requests = app_rows_from_json(args.loadgen_json) if args.loadgen_json else app_rows_from_text(text)
    need(requests, "loadgen request rows")
    summary = [{"what": "requests/s answered by the gateway in the window", "value": int(head.group(5))},
               {"what": "errors (answers other than the expected ones)", "value": sum(r["errors"] for r in requests)},
               {"what": "slowest answer, ms", "value": max(r["max"] for r in requests)}]
    if args.values.get("users"):
        summary.insert(0, {"what": "students", "value": number(args.values["users"])})
    return {
        "tables": [
            table([col("what", "figure"), col("value", "value", True)], summary),
            table(APP_COLUMNS, requests, "Latency from when each request was due (open loop)"),
            table([col("process", "process"), col("cpu", "CPU µs per request", True),
                   col("rss", "resident MiB at start / middle / end", True)], processes,
                  "CPU per request over a %s-second window" % head.group(4)),
        ],
        "series": {"cpu_per_request": {p["process"]: p["cpu"] for p in processes[:-1]}},
    }


def parse_auth(text, args):
    """`loadgen login`: the hashing bound, a row per client count, token verification."""
    bound = need(re.search(r"hashing bound: (\d+) cores / ([\d.]+) ms per Argon2id verification = ([\d.]+) logins/s",
                           text), "hashing bound")
    allcore = need(re.search(r"every core hashing at once: ([\d.]+) verifications/s", text), "all-core rate")
    rows = []
    for line in text.splitlines():
        match = re.match(r"^(\d+)\s+([\d.]+)\s+(\d+)%\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)$", line.strip())
        if match:
            rows.append({"clients": int(match.group(1)), "rate": number(match.group(2)),
                         "share": match.group(3) + "%", "p50": number(match.group(4)), "p99": number(match.group(5)),
                         "max": number(match.group(6)), "errors": int(match.group(7))})
    need(rows, "client rows")
    tokens = [{"what": m.group(1), "p50": int(m.group(2)), "p99": int(m.group(3)), "max": int(m.group(4)),
               "count": int(m.group(5))}
              for m in re.finditer(r"^(token verification[^:]*): p50 (\d+) µs, p99 (\d+) µs, max (\d+) µs "
                                   r"\((\d+) tokens\)",
                                   text, re.M)]
    result = {
        "tables": [
            table([col("what", "the bound"), col("value", "value", True)], [
                {"what": "one Argon2id verification (m = 19 MiB, t = 2, p = 1), ms", "value": number(bound.group(2))},
                {"what": "cores ÷ that time, verifications/s", "value": number(bound.group(3))},
                {"what": "every core verifying at once, verifications/s", "value": number(allcore.group(1))}]),
            table([col("clients", "clients", True), col("rate", "logins/s", True), col("share", "of bound", True),
                   col("p50", "p50 ms", True), col("p99", "p99 ms", True), col("max", "max ms", True),
                   col("errors", "errors", True)], rows, "Closed loop of `POST /v1/auth/login`"),
        ],
        "series": {"logins": {"clients": [r["clients"] for r in rows], "rate": [r["rate"] for r in rows],
                              "bound": min(number(bound.group(3)), number(allcore.group(1)))}},
    }
    if tokens:
        result["tables"].append(table([col("what", "token verification (EdDSA)"), col("p50", "p50 µs", True),
                                       col("p99", "p99 µs", True), col("max", "max µs", True),
                                       col("count", "tokens", True)], tokens))
    return result


def parse_flood(text, args):
    """`loadgen flood` then `loadgen stuffing` (make bench-flood), one after the other."""
    rows = app_rows_from_text(text)
    flood = next((r for r in rows if r["request"].startswith("flood")), None)
    others = next((r for r in rows if r["request"].startswith("others")), None)
    need(flood and others, "flood and others' rows")
    cut = need(re.search(r"flood: (\d+) answered 429 without reaching auth; "
                         r"(\d+) reached a password check \(([\d.]+)/s",
                         text), "flood summary")
    tables = [table([col("what", "the flood from one address"), col("value", "value", True)], [
        {"what": "requests sent", "value": flood["count"]},
        {"what": "answered 429 at the gateway", "value": int(cut.group(1))},
        {"what": "reached a password check", "value": int(cut.group(2))},
        {"what": "password checks per second", "value": number(cut.group(3))},
    ]), table([col("what", "the others' logins (one address each)"), col("value", "value", True)], [
        {"what": "logins", "value": others["count"]},
        {"what": "errors", "value": others["errors"]},
        {"what": "p50 ms", "value": others["p50"]},
        {"what": "p99 ms", "value": others["p99"]},
        {"what": "max ms", "value": others["max"]},
    ])]
    stuffing = re.search(r"stuffing: (\d+) usernames, one password, one address, in ([\d.]+) s\s+"
                         r"reached a password check \(401\): (\d+)\s+answered 429 at the gateway:\s+(\d+)\s+"
                         r"first 429 after:\s+(\S+ s|never)", text)
    if stuffing:
        tables.append(table([col("what", "credential stuffing from one address"), col("value", "value", True)], [
            {"what": "usernames tried", "value": int(stuffing.group(1))},
            {"what": "seconds", "value": number(stuffing.group(2))},
            {"what": "reached a password check", "value": int(stuffing.group(3))},
            {"what": "answered 429 at the gateway", "value": int(stuffing.group(4))},
            {"what": "first 429 after", "value": stuffing.group(5)},
        ]))
    return {"tables": tables}


def parse_orders(text, args):
    rows = report_rows_from_json(args.loadgen_json) if args.loadgen_json else report_rows_from_text(text)
    return {"tables": [open_loop_table(need(rows, "request rows"))]}


def parse_payments(text, args):
    result = parse_orders(text, args)
    pool = need(re.search(r"at most (\d+) busy at once, (\d+) open; pool size (\d+) per process", text),
                "PostgreSQL connection samples")
    result["tables"].append(table([col("what", "PostgreSQL connections, sampled every 100 ms"),
                                   col("value", "value", True)], [
        {"what": "busy at once, at most", "value": int(pool.group(1))},
        {"what": "open, at most", "value": int(pool.group(2))},
        {"what": "pool size per process", "value": int(pool.group(3))},
        {"what": "pool exhausted", "value": "yes" if "EXHAUSTED" in text else "no"},
    ]))
    return result


def parse_notify(text, args):
    rows = []
    for match in re.finditer(r"notify-bench (mail|push): (\d+) \w+ in ([\d.]+) s = (\d+) (\S+); "
                             r"(\d+) (stored by the SMTP "
                             r"sink|received by the FCM-like server)", text):
        rows.append({"what": match.group(1), "figure": "%s %s" % (format(int(match.group(4)), ","), match.group(5)),
                     "detail": "%s of %s %s" % (format(int(match.group(6)), ","), format(int(match.group(2)), ","),
                                                match.group(7))})
    for match in re.finditer(r"notify-bench scheduler: (\d+) of (\d+) reminders fired over a day compressed (\d+)x "
                             r"\((\d+) due/s\); lateness p50 (\d+) ms, p99 (\d+) ms, max (\d+) ms", text):
        rows.append({"what": "scheduler", "figure": "lateness p50 %s ms, p99 %s ms, max %s ms"
                     % (match.group(5), match.group(6), match.group(7)),
                     "detail": "%s of %s reminders over a day compressed %s× (%s due/s)"
                     % (format(int(match.group(1)), ","), format(int(match.group(2)), ","), match.group(3),
                        format(int(match.group(4)), ","))})
    return {"tables": [table([col("what", "case"), col("figure", "figure"), col("detail", "detail")],
                             need(rows, "notify-bench lines"))]}


def parse_hydration(text, args):
    rows = []
    for m in re.finditer(r"first sync of (\d+) drinks, pages of (\d+): "
                         r"p50 ([\d.]+) ms, max ([\d.]+) ms \((\d+) rounds\)",
                         text):
        rows.append({"case": "first sync of %s drinks, pages of %s (%s new devices)"
                     % (format(int(m.group(1)), ","), format(int(m.group(2)), ","), m.group(5)),
                     "p50": number(m.group(3)), "max": number(m.group(4))})
    for m in re.finditer(r"incremental syncs \(5 changes in, median (\d+) out\) "
                         r"at (\d+)/s for (\d+) s over (\d+) users: "
                         r"(\d+) in [\d.]+ s, p50 ([\d.]+) ms, p99 ([\d.]+) ms, max ([\d.]+) ms", text):
        rows.append({"case": "incremental syncs at %s/s for %s s (5 changes in, median %s out)"
                     % (m.group(2), m.group(3), m.group(1)),
                     "p50": number(m.group(6)), "p99": number(m.group(7)), "max": number(m.group(8))})
    for m in re.finditer(r"reminders composed at fire time: (\d+) of (\d+) sent over a day "
                         r"compressed (\d+)x \((\d+) due/s\); "
                         r"lateness p50 (\d+) ms, p99 (\d+) ms, max (\d+) ms", text):
        rows.append({"case": "reminders: %s due over a day compressed %s× (%s due/s), lateness"
                     % (format(int(m.group(2)), ","), m.group(3), m.group(4)),
                     "p50": number(m.group(5)), "p99": number(m.group(6)), "max": number(m.group(7))})
    return {"tables": [table([col("case", "case"), col("p50", "p50 ms", True), col("p99", "p99 ms", True),
                              col("max", "max ms", True)], need(rows, "hydration-bench lines"))]}


def parse_social(text, args):
    rows = []
    for m in re.finditer(r"^(.+?) at (\d+)/s for (\d+) s: (\d+) answered in [\d.]+ s \(([\d.]+)/s\), p50 ([\d.]+) ms, "
                         r"p99 ([\d.]+) ms, max ([\d.]+) ms, (\d+) errors", text, re.M):
        rows.append({"case": m.group(1), "rate": "%s/s" % m.group(2), "answered": number(m.group(5)),
                     "p50": number(m.group(6)), "p99": number(m.group(7)), "max": number(m.group(8)),
                     "errors": int(m.group(9))})
    return {"tables": [table([col("case", "case"), col("rate", "sent", True), col("answered", "answered/s", True),
                              col("p50", "p50 ms", True), col("p99", "p99 ms", True), col("max", "max ms", True),
                              col("errors", "errors", True)], need(rows, "social-bench lines"))]}


TIMED = re.compile(r"^\s*(?P<label>[^:]+?):\s+p50 (?P<p50>[\d.]+ [µm]s), p99 (?P<p99>[\d.]+ [µm]s), "
                   r"max (?P<max>[\d.]+ [µm]?s) \(n=(?P<n>\d+)\)")


def timed_rows(lines):
    rows, last = [], None
    for line in lines:
        match = TIMED.match(line)
        if not match:
            continue
        label = " ".join(match["label"].split())
        if label.startswith("same, CPU time") and last:
            label = last + " (thread CPU time)"
        else:
            last = label
        rows.append({"what": label, "p50": match["p50"], "p99": match["p99"], "n": int(match["n"])})
    return rows


def parse_routing(text, args):
    lines = text.splitlines()
    cut = next((i for i, line in enumerate(lines) if line.startswith("timetable:")), len(lines))
    rows = need(timed_rows(lines[:cut]), "route timings")
    ratio = re.search(r"in-process A\* is ([\d.]+)x faster at p50, ([\d.]+)x at p99; "
                      r"same cost on (\d+)/(\d+) pairs", text)
    if ratio:
        rows.append({"what": "in-process A* against pgr_dijkstra, times faster",
                     "p50": ratio.group(1) + "×", "p99": ratio.group(2) + "×",
                     "n": int(ratio.group(4))})
    return {"tables": [table([col("what", "what"), col("p50", "p50", True), col("p99", "p99", True),
                              col("n", "queries", True)], rows)]}


def parse_timetable(text, args):
    lines = text.splitlines()
    start = need(next((i for i, line in enumerate(lines) if line.startswith("timetable:")), None), "timetable part")
    rows = need(timed_rows(lines[start:]), "timetable timings")
    return {"tables": [table([col("what", "what"), col("p50", "p50", True), col("p99", "p99", True),
                              col("n", "queries", True)], rows, lines[start].strip())]}


def markdown_tables(text):
    """Every `| a | b |` table in the text: a header row, a |---| row, then rows (short rows padded)."""
    tables, current = [], None
    lines = text.splitlines()
    for index, line in enumerate(lines):
        line = line.strip()
        if not line.startswith("|"):
            current = None
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if index + 1 < len(lines) and re.match(r"^\|[-:| ]+\|$", lines[index + 1].strip()):
            keys = ["c%d" % i for i in range(len(cells))]
            current = table([col(k, t, i > 0) for i, (k, t) in enumerate(zip(keys, cells))], [])
            tables.append(current)
        elif re.match(r"^\|[-:| ]+\|$", line):
            continue
        elif current is not None:
            current["rows"].append({"c%d" % i: cell for i, cell in enumerate(cells) if cell})
    return tables


def parse_printing(text, args):
    tables = need(markdown_tables(text), "tables")
    # The memory row (printed by a child process) has 4 cells: what, peak, before, target.
    for rows in (t["rows"] for t in tables if len(t["columns"]) == 5):
        for row in rows:
            if row.get("c0", "").startswith("peak RSS") and "c4" not in row and "c3" in row:
                row["c0"] += " " + row.pop("c2", "")
                row["c4"] = row.pop("c3")
    photo = re.search(r"printing-bench: (\d+)x(\d+) JPEG \((\d+) bytes\)", text)
    result = {"tables": tables}
    if photo:
        result["notes"] = ["The photo: %s×%s JPEG, %s bytes." % (photo.group(1), photo.group(2),
                                                                   format(int(photo.group(3)), ","))]
    return result


def parse_civic(text, args):
    first = need(re.search(r"first import of (\d+) bills: ([\d.]+) s, (\d+) pages", text), "first import")
    changed = need(re.search(r"(\d+) changed bills: ([\d.]+) s, (\d+) pages, \d+ new, (\d+) changed", text),
                   "changed-bills import")
    fresh = need(re.search(r"freshness: a change in the feed served after ([\d.]+) s \(import every (\d+) s\)", text),
                 "freshness")
    requests = app_rows_from_json(args.loadgen_json) if args.loadgen_json else app_rows_from_text(text)
    return {"tables": [
        table([col("what", "import"), col("value", "seconds", True)], [
            {"what": "first import, %s bills (%s pages)" % (format(int(first.group(1)), ","),
                                                            format(int(first.group(3)), ",")),
             "value": number(first.group(2))},
            {"what": "%s bills changed in the feed (%s pages; %s changed in a field civic keeps)"
                     % (format(int(changed.group(1)), ","), changed.group(3), format(int(changed.group(4)), ",")),
             "value": number(changed.group(2))},
            {"what": "a change in the feed until served (imports every %s s)" % fresh.group(2),
             "value": number(fresh.group(1))}]),
        table(APP_COLUMNS, need(requests, "politimap rows"), "Reads, open loop, latency from when each was due"),
    ]}


def parse_zmtp_fuzz(text, args):
    head = need(re.search(r"(\d+) cases in ([\d.]+) s: (\d+) cases/s", text), "case count")
    rules = need(re.search(r"rules broken: (\d+)", text), "rules broken")
    accepted = re.search(r"accepted \(no error\): (\d+)", text)
    held = re.search(r"most bytes one decoder held: (\d+)", text)
    rss = re.search(r"RSS: before ([\d.]+) MiB, after the first tenth ([\d.]+) MiB, after ([\d.]+) MiB; "
                    r"peak \(VmHWM\) ([\d.]+) MiB", text)
    rows = [{"what": "cases", "value": int(head.group(1))},
            {"what": "cases/s", "value": int(head.group(3))},
            {"what": "rules broken", "value": int(rules.group(1))}]
    if accepted:
        rows.append({"what": "accepted (no error)", "value": int(accepted.group(1))})
    if held:
        rows.append({"what": "most bytes one decoder held", "value": int(held.group(1))})
    if rss:
        rows.append({"what": "RSS MiB before / after a tenth / after / peak",
                     "value": " / ".join(rss.groups())})
    return {"tables": [table([col("what", "figure"), col("value", "value", True)], rows)]}


def parse_fault(text, args):
    rows = []
    kills = re.search(r"kills: (\d+)", text)
    if kills:
        rows.append({"what": "processes SIGKILLed", "value": int(kills.group(1))})
    for match in re.finditer(r"^(!!| {2}) (\S.*?)\s+(\d+)$", text, re.M):
        row = {"what": match.group(2), "value": int(match.group(3))}
        if match.group(1) == "!!":
            row["mark"] = "**not zero**"
        rows.append(row)
    need(len(rows) > 1, "reconciliation lines")
    return {"tables": [table([col("what", "count"), col("value", "value", True), col("mark", "")], rows)]}


PARSERS = {
    "broker": parse_broker, "gateway": parse_gateway, "navup": parse_navup, "auth": parse_auth,
    "flood": parse_flood, "orders": parse_orders, "gifts": parse_orders, "payments": parse_payments,
    "notify": parse_notify, "hydration": parse_hydration, "social": parse_social, "routing": parse_routing,
    "timetable": parse_timetable, "printing": parse_printing, "civic": parse_civic, "zmtp-fuzz": parse_zmtp_fuzz,
    "fault": parse_fault,
}


# The command a result file names when --command does not say.
DEFAULT_COMMANDS = {"timetable": "make bench-routing", "gifts": "make bench-social", "fault": "make fault-run",
                    "zmtp-fuzz": "deploy/scripts/bench-zmtp-fuzz.sh"}


# ---------------------------------------------------------------------------------------------


def git_commit():
    try:
        return subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip() or None
    except (OSError, subprocess.CalledProcessError):
        return None


def machine():
    parts = ["%d cores" % (os.cpu_count() or 0)]
    try:
        with open("/proc/meminfo") as handle:
            kib = int(next(line for line in handle if line.startswith("MemTotal:")).split()[1])
        parts.append("%.0f GiB" % (kib / 1024 / 1024))
    except (OSError, StopIteration, ValueError):
        pass
    try:
        with open("/etc/os-release") as handle:
            fields = dict(line.rstrip("\n").split("=", 1) for line in handle if "=" in line)
        parts.append(fields.get("PRETTY_NAME", "").strip('"'))
    except OSError:
        pass
    return ", ".join(p for p in parts if p)


def main(argv=None):
    parser = argparse.ArgumentParser(description="Turn a benchmark's output into docs/bench/NAME.json.")
    parser.add_argument("name", choices=sorted(PARSERS))
    parser.add_argument("--input", action="append", default=[], help="the tool's output (default: standard input)")
    parser.add_argument("--loadgen-json", help="the file loadgen's --json wrote")
    parser.add_argument("--command", help="the command that produced it (default: make bench-NAME)")
    parser.add_argument("--rounds", type=int)
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a value the output lacks")
    parser.add_argument("--note", action="append", default=[], help="a line printed under the tables")
    parser.add_argument("--out", help="folder (default $BENCH_RESULTS, else docs/bench; off: write nothing)")
    parser.add_argument("--print", action="store_true", help="write the result to standard output")
    args = parser.parse_args(argv)
    args.values = dict(item.split("=", 1) for item in args.set)

    text = "".join(open(path, errors="replace").read() for path in args.input) if args.input else sys.stdin.read()
    try:
        parsed = PARSERS[args.name](text, args)
    except (ParseError, OSError, KeyError, ValueError, json.JSONDecodeError) as error:
        print("bench-json.py %s: %s" % (args.name, error), file=sys.stderr)
        return 1

    result = {
        "bench": args.name,
        "command": args.command or DEFAULT_COMMANDS.get(args.name, "make bench-%s" % args.name),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
        "commit": git_commit(),
        "machine": machine(),
    }
    rounds = args.rounds or parsed.pop("rounds", None)
    parsed.pop("rounds", None)
    if rounds:
        result["rounds"] = rounds
    result["tables"] = parsed["tables"]
    notes = parsed.get("notes", []) + args.note
    if notes:
        result["notes"] = notes
    if parsed.get("series"):
        result["series"] = parsed["series"]
    body = json.dumps(result, indent=1, ensure_ascii=False) + "\n"

    folder = args.out or os.environ.get("BENCH_RESULTS") or os.path.join(REPO, "docs", "bench")
    if args.print:
        sys.stdout.write(body)
    elif folder != "off":
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, args.name + ".json")
        with open(path, "w") as handle:
            handle.write(body)
        print("bench-json.py: wrote %s" % os.path.relpath(path), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
