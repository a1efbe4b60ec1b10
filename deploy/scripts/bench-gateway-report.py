#!/usr/bin/env python3
"""Prints `make bench-gateway`'s tables from the runs bench-gateway-measure.sh measured: a table per
round (requests/s, p50, p99, non-2xx, the share of the round's hello-world rate, CPU µs per
request), the median shares over the rounds, and the load generator against wrk on /healthz.
bench-json.py reads this text, so its form is fixed.

    python3 deploy/scripts/bench-gateway-report.py RESULTS.tsv ROUNDS "TARGETS" THREADS CONNECTIONS SECONDS
"""
import datetime
import sys


def number(text):
    try:
        return float(text)
    except ValueError:
        return 0.0


def main(results, rounds, targets, threads, connections, seconds):
    rows = {}
    for line in open(results, encoding="utf-8"):
        fields = line.rstrip("\n").split("\t")
        if len(fields) == 8:
            rows[(int(fields[0]), fields[1])] = dict(zip(["rate", "p50", "p99", "errors", "cpu", "loadgen_cpu"], fields[2:]))
    rounds = int(rounds)
    targets = targets.split()

    def share(round_, target):
        hello = rows.get((round_, "hello"), {}).get("rate", "")
        if not hello:
            return "-"
        return f"{100 * number(rows[(round_, target)]['rate']) / number(hello):.0f}"

    for round_ in range(1, rounds + 1):
        when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        print(f"\n{when}, round {round_} of {rounds}, wrk -t{threads} -c{connections} -d{seconds}s\n")
        print("| target | requests/s | p50 | p99 | non-2xx | share of hello-world | CPU µs per request |")
        print("|---|---:|---:|---:|---:|---:|---|")
        for target in targets:
            r = rows[(round_, target)]
            print(f"| {target} | {r['rate']} | {r['p50']} | {r['p99']} | {r['errors']} | {share(round_, target)}% | {r['cpu']} |")
    if rounds > 1:
        print(f"\nmedian share of hello-world over {rounds} rounds (each round against its own hello-world):\n")
        print("| target | median share | shares by round |\n|---|---:|---|")
        for target in targets:
            if target == "hello":
                continue
            shares = [share(round_, target) for round_ in range(1, rounds + 1)]
            ordered = sorted(shares, key=number)
            middle = len(ordered) // 2
            median = ordered[middle] if len(ordered) % 2 else f"{(number(ordered[middle - 1]) + number(ordered[middle])) / 2:.6g}"
            print(f"| {target} | {median}% | {' '.join(s + '%' for s in shares)} |")
    if "loadgen-healthz" in targets and "healthz" in targets:
        print(f"\nload generator against wrk on /healthz, {connections} connections each:\n")
        print("| round | wrk requests/s | loadgen requests/s | loadgen / wrk | loadgen CPU µs per request |\n"
              "|---:|---:|---:|---:|---:|")
        for round_ in range(1, rounds + 1):
            wrk, loadgen = rows[(round_, "healthz")], rows[(round_, "loadgen-healthz")]
            ratio = f"{100 * number(loadgen['rate']) / number(wrk['rate']):.0f}"
            print(f"| {round_} | {wrk['rate']} | {loadgen['rate']} | {ratio}% | {loadgen['loadgen_cpu']} |")


if __name__ == "__main__":
    main(*sys.argv[1:])
