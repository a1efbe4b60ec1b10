#!/usr/bin/env python3
"""Every file is in the room its kind of code belongs to (docs/design.md, "A service's shape").

    python3 deploy/scripts/check-shape.py [--root DIR]

Checks, over services/ and shared/ (tests are free to do as they need):
- no SQL text and no PostgresClient, PostgresConnection or PostgresQuery outside a Store/ folder
  and shared/Store;
- no Rules/ file imports I/O (NIO, PostgresNIO, HTTP clients, ServiceKit, Store, Majordomo,
  ZeroMQ), reads a clock, or names a type of its service's Clients/ or Store/;
- a worker service's operation table is only in <Name>Service.swift;
- every worker service's tree has the rooms the design doc draws and nothing else;
- no type is named with a word the vocabulary retires (Book, Desk, Shelf, Manager, Helper, Util).
Comments are not read. Exit 1 with one line per problem. Run by `make test` (its imports step);
its failing fixtures are in Tests/tooling/test_shape.py.
"""
import argparse
import pathlib
import re
import sys

SERVICE_ROOMS = {"Handlers", "Rules", "Store", "Clients", "Jobs", "Resources", "Migrations"}
FOLDER_ROOMS = {"main", "bench", "tools"}
POSTGRES_TYPES = re.compile(r"\bPostgres(?:Client|Connection|Query)\b")
# SQL as code holds it: upper-case keywords in the order a statement puts them.
SQL = re.compile(
    r"\b(?:SELECT\b[\s\S]*?\bFROM\b|INSERT\s+INTO\b|UPDATE\s+[\w.\"]+\s+SET\b|DELETE\s+FROM\b"
    r"|CREATE\s+(?:TABLE|INDEX|UNIQUE\s+INDEX|EXTENSION|SCHEMA)\b|ALTER\s+TABLE\b|TRUNCATE\b|DROP\s+(?:TABLE|SCHEMA)\b"
    r"|SELECT\s+(?:pg_|set_config|nextval|now\(\)|1\b))")
STRING = re.compile(r'#*"""[\s\S]*?"""#*|#*"(?:[^"\\\n]|\\.)*"#*')
COMMENT = re.compile(r"//[^\n]*|/\*[\s\S]*?\*/")
RULES_IMPORTS = re.compile(
    r"^\s*(?:@\w+\s+)*import\s+(?:struct\s+|enum\s+|class\s+|func\s+)?"
    r"(NIO\w*|PostgresNIO|AsyncHTTPClient|FoundationNetworking|Hummingbird\w*|ServiceKit|Store|Majordomo|ZeroMQ)\b",
    re.M)
CLOCK_READS = re.compile(
    r"\bDate\(\)|\bDate\.now\b|\bContinuousClock\b|\bSuspendingClock\b|\bclock_gettime\b|\bDispatchTime\b"
    r"|\bgettimeofday\b|\btime\(nil\)|\bsystemUptime\b|\bCFAbsoluteTimeGetCurrent\b|\.now\(\)")
TABLE_LINE = re.compile(r"\b(?:register|registerEncoded|markQuick)\s*\(\s*[A-Z][\w.]*\.self")
RETIRED = re.compile(r"\b(?:struct|class|enum|actor|protocol|typealias)\s+(\w*?(?:Book|Desk|Shelf|Manager|Helper|Utils?))\b")
DECLARED = re.compile(r"\b(?:struct|class|enum|actor|protocol|typealias)\s+([A-Z]\w*)")


def code_of(text):
    """The text without comments; string literals kept (SQL lives in them)."""
    out, index = [], 0
    while index < len(text):
        string = STRING.match(text, index)
        if string:
            out.append(string.group(0))
            index = string.end()
            continue
        comment = COMMENT.match(text, index)
        if comment:
            out.append("\n" * comment.group(0).count("\n"))
            index = comment.end()
            continue
        out.append(text[index])
        index += 1
    return "".join(out)


def line_of(text, position):
    return text.count("\n", 0, position) + 1


def in_store(relative):
    parts = relative.parts
    return "Store" in parts[:-1] or "Migrations" in parts[:-1]


def worker_services(root):
    """The worker services named in deploy/services.txt."""
    names = []
    for line in (root / "deploy/services.txt").read_text().splitlines():
        fields = line.split()
        if len(fields) >= 2 and not fields[0].startswith("#") and fields[1] == "worker":
            names.append(fields[0])
    return names


def check_tree(root, name):
    problems = []
    title = name[:1].upper() + name[1:]
    folder = root / "services" / name
    allowed = FOLDER_ROOMS | {f"{title}Contract", f"{title}Service"}
    for child in sorted(folder.iterdir()):
        if child.name not in allowed:
            problems.append(f"services/{name}/{child.name}: not a room of a service (want: {', '.join(sorted(allowed))})")
    for needed in ("main", f"{title}Contract", f"{title}Service"):
        if not (folder / needed).is_dir():
            problems.append(f"services/{name}: no {needed}/")
    library = folder / f"{title}Service"
    if not library.is_dir():
        return problems
    files = {f"{title}Service.swift", f"{title}Settings.swift"}
    for child in sorted(library.iterdir()):
        where = f"services/{name}/{title}Service/{child.name}"
        if child.is_dir() and child.name not in SERVICE_ROOMS:
            problems.append(f"{where}: not a room (want one of {', '.join(sorted(SERVICE_ROOMS))})")
        elif child.is_file() and child.name not in files:
            problems.append(f"{where}: only {title}Service.swift and {title}Settings.swift sit beside the rooms")
    if not (library / f"{title}Service.swift").is_file():
        problems.append(f"services/{name}/{title}Service: no {title}Service.swift")
    for path in sorted(library.rglob("*")):
        if not path.is_file():
            continue
        relative = path.relative_to(library)
        room = relative.parts[0] if len(relative.parts) > 1 else None
        where = f"services/{name}/{title}Service/{relative}"
        if room == "Resources" and path.suffix == ".swift":
            problems.append(f"{where}: code in Resources/")
        elif room == "Migrations" and not re.fullmatch(r"\d{4}_\w+\.sql", path.name):
            problems.append(f"{where}: a migration is NNNN_name.sql")
        elif room not in ("Resources", "Migrations") and path.suffix != ".swift":
            problems.append(f"{where}: a data file outside Resources/")
    return problems


def check_rules(root, name):
    problems = []
    title = name[:1].upper() + name[1:]
    library = root / "services" / name / f"{title}Service"
    foreign = {}
    for room in ("Clients", "Store"):
        for path in sorted((library / room).rglob("*.swift")):
            for match in DECLARED.finditer(code_of(path.read_text(encoding="utf-8"))):
                foreign.setdefault(match.group(1), room)
    names = re.compile(r"\b(" + "|".join(map(re.escape, foreign)) + r")\b") if foreign else None
    for path in sorted((library / "Rules").rglob("*.swift")):
        where = path.relative_to(root)
        code = code_of(path.read_text(encoding="utf-8"))
        for match in RULES_IMPORTS.finditer(code):
            problems.append(f"{where}:{line_of(code, match.start())}: rules import {match.group(1)}")
        without_strings = STRING.sub(lambda m: "\n" * m.group(0).count("\n"), code)
        for match in CLOCK_READS.finditer(without_strings):
            problems.append(f"{where}:{line_of(without_strings, match.start())}: rules read the clock ({match.group(0)}); pass the time in")
        if names:
            for match in names.finditer(without_strings):
                problems.append(
                    f"{where}:{line_of(without_strings, match.start())}: rules reach {foreign[match.group(1)]}/ ({match.group(1)})")
    return problems


def check_table(root, name):
    problems = []
    title = name[:1].upper() + name[1:]
    library = root / "services" / name / f"{title}Service"
    for path in sorted(library.rglob("*.swift")):
        if path.name == f"{title}Service.swift" and path.parent == library:
            continue
        code = STRING.sub('""', code_of(path.read_text(encoding="utf-8")))
        for match in TABLE_LINE.finditer(code):
            problems.append(
                f"{path.relative_to(root)}:{line_of(code, match.start())}: an operation table line outside {title}Service.swift")
    return problems


def check_code(root):
    problems = []
    for top in ("services", "shared"):
        for path in sorted((root / top).rglob("*.swift")):
            relative = path.relative_to(root)
            code = code_of(path.read_text(encoding="utf-8"))
            for match in RETIRED.finditer(STRING.sub('""', code)):
                problems.append(f"{relative}: type {match.group(1)}: name it for what it holds or does")
            if in_store(relative) or relative.parts[:2] == ("shared", "Store"):
                continue
            without_strings = STRING.sub(lambda m: "\n" * m.group(0).count("\n"), code)
            for match in POSTGRES_TYPES.finditer(without_strings):
                problems.append(f"{relative}:{line_of(without_strings, match.start())}: {match.group(0)} outside Store/")
            for match in STRING.finditer(code):
                if SQL.search(match.group(0)):
                    problems.append(f"{relative}:{line_of(code, match.start())}: SQL outside Store/")
    return problems


def check(root):
    root = pathlib.Path(root)
    problems = check_code(root)
    for name in worker_services(root):
        if not (root / "services" / name).is_dir():
            problems.append(f"services/{name}: in deploy/services.txt but not here")
            continue
        problems += check_tree(root, name) + check_rules(root, name) + check_table(root, name)
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=pathlib.Path(__file__).resolve().parents[2], type=pathlib.Path)
    problems = check(parser.parse_args().root)
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} file(s) out of their room (docs/design.md, \"A service's shape\")", file=sys.stderr)
        return 1
    print("every file is in its room")
    return 0


if __name__ == "__main__":
    sys.exit(main())
