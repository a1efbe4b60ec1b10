#!/usr/bin/env python3
"""The clients made by generators that are not ours: no warning, and one method per operation
(make test's api-clients step; api-clients.sh generates them into OUT first).

    python3 deploy/scripts/api-clients.py DOC OUT

For each generator, OUT holds GENERATOR.log (what the generator printed) and the folder GENERATOR
(the client). A line of the log that is a warning or an error is a problem, unless it is one of
the generator's notices about itself listed in Tests/api-clients/notices.txt. The operations of
DOC, less those Tests/api-clients/unexpressed.txt lists for the generator, must each have exactly
one method in the client, found by the generator's own layout (GENERATORS below); the problems
name the operationIds missing or repeated. Prints one line per generator; exits 1 on a problem.
"""
import collections
import pathlib
import re
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
LISTS = ROOT / "Tests/api-clients"
METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")

# generator -> (files, within OUT/GENERATOR, that hold the operations; what names one operation).
# openapi-python-client writes a module per operation, PACKAGE/api/TAG/OPERATION_ID_IN_SNAKE_CASE.py;
# openapi-generator a class per tag whose methods carry the operationId.
GENERATORS = {
    "python": ("*/api/*/*.py", None),
    "typescript-fetch": ("**/apis/*Api.ts", re.compile(r"^\s*async (\w+)Raw\(", re.M)),
    "kotlin": ("**/apis/*Api.kt", re.compile(r"^\s*fun (\w+)WithHttpInfo\(", re.M)),
    "swift6": ("**/APIs/*API.swift", re.compile(r"^\s*open class func (\w+)WithRequestBuilder\(", re.M)),
}
# openapi-generator's log lines: "[main] WARN  o.o.codegen.DefaultCodegen - the message".
JAVA_LOG = re.compile(r"^\[[^\]]*\]\s+(TRACE|DEBUG|INFO|WARN|ERROR)\s+\S+\s+-\s?(.*)$")


def key(name):
    """An operationId as every generator spells it, compared without case or separators."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


def operations(doc):
    return [op["operationId"] for item in doc["paths"].values() for method, op in item.items() if method in METHODS]


def listed(path):
    """The entries of a list file: one per line, fields separated by ' | ', '#' starts a comment."""
    rows = []
    for line in path.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            rows.append([field.strip() for field in line.split(" | ")])
    return rows


def applies(generators, generator):
    return generators == "*" or generator in [g.strip() for g in generators.split(",")]


def log_problems(generator, text, notices):
    """The lines of a generator's log that are warnings or errors, less the listed notices."""
    allowed = {message for generators, message, _ in notices if applies(generators, generator)}
    problems = []
    for line in text.splitlines():
        if generator == "python":
            # openapi-python-client prints "Generating PATH" and nothing else when all is well; a
            # warning is a headline, then the part of the document it is about, as indented JSON.
            if line.strip() and not line.startswith(("Generating ", " ", "{", "}")):
                problems.append(line.strip())
            continue
        match = JAVA_LOG.match(line)
        if match and match.group(1) in ("WARN", "ERROR") and match.group(2).strip() not in allowed:
            problems.append(line.strip())
        elif not match and re.search(r"\b(WARN|ERROR|Exception)\b", line):
            problems.append(line.strip())
    counts = collections.Counter(problems)
    return [line + (f" (printed {counts[line]} times)" if counts[line] > 1 else "") for line in counts]


def generated(generator, folder):
    """Counter of the operation names the client in `folder` has methods for, by key()."""
    pattern, method = GENERATORS[generator]
    names = collections.Counter()
    for path in sorted(folder.glob(pattern)):
        if method is None:
            if path.name != "__init__.py":
                names[key(path.stem)] += 1
        else:
            names.update(key(name) for name in method.findall(path.read_text()))
    return names


def check(doc_path, out, unexpressed_path=LISTS / "unexpressed.txt", notices_path=LISTS / "notices.txt"):
    """(summary lines, problems) for every generator's client in `out`."""
    doc = yaml.safe_load(pathlib.Path(doc_path).read_text())
    ids = operations(doc)
    unexpressed = listed(unexpressed_path)
    notices = listed(notices_path)
    problems, summary = [], []
    for row in unexpressed + notices:
        if len(row) != 3 or not all(row):
            problems.append(f"{unexpressed_path.name} or {notices_path.name}: not 'a | b | reason': {' | '.join(row)}")
    for op_id, *_ in unexpressed:
        if op_id not in ids:
            problems.append(f"{unexpressed_path.name}: {op_id} is not an operation of the document")
    for generator in GENERATORS:
        log = out / f"{generator}.log"
        if not log.is_file() or not (out / generator).is_dir():
            problems.append(f"{generator}: no client in {out / generator} (did the generator run?)")
            continue
        problems += [f"{generator}: {line}" for line in log_problems(generator, log.read_text(), notices)]
        left_out = {op_id for op_id, generators, _ in unexpressed if applies(generators, generator)}
        wanted = [op_id for op_id in ids if op_id not in left_out]
        found = generated(generator, out / generator)
        missing = [op_id for op_id in wanted if found[key(op_id)] == 0]
        repeated = [op_id for op_id in wanted if found[key(op_id)] > 1]
        unknown = sorted(set(found) - {key(op_id) for op_id in ids})
        counted = sum(1 for op_id in wanted if found[key(op_id)] == 1)
        summary.append(f"{generator}: {counted} of {len(ids)} operations have one method"
                       f" ({len(left_out)} left out as not expressible)")
        if missing:
            problems.append(f"{generator}: no method for {len(missing)} operations: {', '.join(missing)}")
        if repeated:
            problems.append(f"{generator}: more than one method for: {', '.join(repeated)}")
        if unknown:
            problems.append(f"{generator}: methods of no operation of the document: {', '.join(unknown)}")
    return summary, problems


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.splitlines()[3].strip())
    summary, problems = check(sys.argv[1], pathlib.Path(sys.argv[2]))
    for line in summary:
        print(f"api-clients: {line}")
    for problem in problems:
        print(f"api-clients: {problem}", file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
