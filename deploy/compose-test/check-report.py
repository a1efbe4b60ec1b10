"""compose-test's check of a loadgen report: every request kind answered as expected, and some of
each of the apps named.

    python3 deploy/compose-test/check-report.py REPORT.json [APP...]
"""
import json
import sys

report = json.load(open(sys.argv[1]))
kinds = {r["name"]: r for r in report["requests"]}
bad = [f'{name}: {r["errors"]} of {r["count"]} not as expected {r["statuses"]}' for name, r in kinds.items() if r["errors"]]
for app in sys.argv[2:]:
    if not any(name.startswith(app) and r["count"] > 0 for name, r in kinds.items()):
        bad.append(f"no {app} request was made")
for name, r in sorted(kinds.items()):
    print(f'  {name:<36} {r["count"]:>6}  {r["statuses"]}')
if bad:
    print("\n".join(bad), file=sys.stderr)
    sys.exit(1)
