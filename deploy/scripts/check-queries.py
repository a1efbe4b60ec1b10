#!/usr/bin/env python3
"""No service sends a query to PostgreSQL past `shared/Store`'s guard.

PostgresNIO 1.33 drops a query written into a connection that has just closed and never answers
it, and its pool can lend such a connection. `shared/Store` sends a query only after checking, on
the connection's own event loop, that it is open: `fetch`, on a client (a lone query or prepared
statement) or on a connection (inside `transaction` or `withConnection`). This prints each place
in `services/` and `shared/` that goes around it: PostgresNIO's `query` on anything, or a
prepared statement run with `execute`. Exit 1 when there is one. Run by `make test` with the
import check; alone: `python3 deploy/scripts/check-queries.py`.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Where the guard itself is written.
GUARD = {"shared/Store/PostgresClient+Fetch.swift", "shared/Store/PostgresClient+Transaction.swift",
         "shared/Store/ConnectionLoopExecutor.swift"}
PATTERNS = [
    (re.compile(r'[\w$)\]]\s*\.query\('), "PostgresNIO's query, not fetch"),
    (re.compile(r'\.execute\(\s*[A-Z]\w*Statement\('), "a prepared statement run with execute, not fetch"),
]


def main() -> int:
    problems = []
    for top in ("services", "shared"):
        for folder, _, files in os.walk(os.path.join(ROOT, top)):
            for file in files:
                if not file.endswith(".swift"):
                    continue
                full = os.path.join(folder, file)
                relative = os.path.relpath(full, ROOT)
                if relative in GUARD:
                    continue
                text = open(full, encoding="utf-8").read()
                for pattern, what in PATTERNS:
                    for match in pattern.finditer(text):
                        line = text.count("\n", 0, match.start()) + 1
                        problems.append(f"{relative}:{line}: {what}")
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} place(s) past shared/Store's guard", file=sys.stderr)
        return 1
    print("every query goes through shared/Store's guard")
    return 0


if __name__ == "__main__":
    sys.exit(main())
