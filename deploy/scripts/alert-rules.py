#!/usr/bin/env python3
"""Checks deploy/observability/alerts.yml beyond what promtool checks.

    python3 deploy/scripts/alert-rules.py runbooks
    python3 deploy/scripts/alert-rules.py metrics SCRAPE_FILE...

runbooks: every rule has a severity, a summary, a description and a runbook_url naming a heading
of a document under docs/ (`docs/operating.md#anchor`, the anchor as GitHub makes it from the
heading), and alerts.test.yml has a case where it fires and one where it stays quiet.
metrics: every metric a rule's expression names appears in one of the scrapes (Prometheus text),
but `up`, which Prometheus writes itself for each target. Exits 1 naming each problem.
"""
import pathlib
import re
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
RULES = ROOT / "deploy/observability/alerts.yml"
TESTS = ROOT / "deploy/observability/alerts.test.yml"
# Written by Prometheus for each scrape target, never exported by a process.
SYNTHETIC = {"up"}
KEYWORDS = {"and", "or", "unless", "by", "without", "on", "ignoring", "group_left", "group_right",
            "offset", "bool", "inf", "nan"}


def rules(path=RULES):
    return [rule for group in yaml.safe_load(path.read_text())["groups"] for rule in group["rules"]
            if "alert" in rule]


def slug(heading):
    """GitHub's anchor of a Markdown heading's text."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(document):
    return {slug(line.lstrip("#")) for line in document.read_text().splitlines() if re.match(r"#{1,6} ", line)}


def runbook_problems(root=ROOT, rules_path=RULES, tests_path=TESTS):
    problems = []
    cases = {}  # alert -> {"fires", "quiet"}
    for test in yaml.safe_load(tests_path.read_text()).get("tests", []):
        for case in test.get("alert_rule_test", []):
            cases.setdefault(case["alertname"], set()).add("fires" if case.get("exp_alerts") else "quiet")
    for rule in rules(rules_path):
        name = rule["alert"]
        annotations = rule.get("annotations", {})
        for field in ("summary", "description", "runbook_url"):
            if not annotations.get(field):
                problems.append(f"{name}: no {field} annotation")
        if not rule.get("labels", {}).get("severity"):
            problems.append(f"{name}: no severity label")
        for kind in ("fires", "quiet"):
            if kind not in cases.get(name, set()):
                problems.append(f"{name}: no test case in {tests_path.name} where it {kind if kind == 'fires' else 'stays quiet'}")
        url = annotations.get("runbook_url", "")
        if not url:
            continue
        document, _, anchor = url.partition("#")
        path = root / document
        if not document.startswith("docs/") or not anchor:
            problems.append(f"{name}: runbook_url {url!r} is not docs/FILE.md#heading")
        elif not path.is_file():
            problems.append(f"{name}: runbook_url {url!r}: no {document}")
        elif anchor not in anchors(path):
            problems.append(f"{name}: runbook_url {url!r}: no heading with anchor #{anchor} in {document}")
    return problems


def metric_names(expr):
    """The metric names a PromQL expression reads."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)  # strings (label values)
    text = re.sub(r"\{[^}]*\}", "", text)  # label matchers
    text = re.sub(r"\[[^\]]*\]", "", text)  # ranges
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", text)  # label lists
    names = set()
    for match in re.finditer(r"(?<![\w.:])[a-zA-Z_:][\w:]*", text):
        after = text[match.end():].lstrip()
        if match.group(0) not in KEYWORDS and not after.startswith("("):
            names.add(match.group(0))
    return names


def scraped_names(text):
    names = set()
    for line in text.splitlines():
        if line and not line.startswith("#"):
            names.add(re.split(r"[{ ]", line, maxsplit=1)[0])
    return names


def metric_problems(scrapes, rules_path=RULES):
    seen = set().union(*(scraped_names(pathlib.Path(f).read_text()) for f in scrapes)) if scrapes else set()
    problems = []
    for rule in rules(rules_path):
        for name in sorted(metric_names(rule["expr"]) - SYNTHETIC - seen):
            problems.append(f"{rule['alert']}: {name} is in no scrape of the running system")
    return problems


def main(argv):
    if argv[:1] == ["runbooks"]:
        problems, done = runbook_problems(), "every rule has its annotations, tests and an existing runbook heading"
    elif argv[:1] == ["metrics"] and argv[1:]:
        problems, done = metric_problems(argv[1:]), f"every metric the rules name is in the {len(argv) - 1} scrapes"
    else:
        raise SystemExit(__doc__)
    for problem in problems:
        print(f"alert-rules: {problem}", file=sys.stderr)
    if not problems:
        print(f"alert-rules: {done}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
