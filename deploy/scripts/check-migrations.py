#!/usr/bin/env python3
"""Schema migrations are written expand-then-contract, so that the executables of the latest
release and this tree's can run side by side on one database, and a release can be rolled back.

    python3 deploy/scripts/check-migrations.py            # check (make test's imports step)
    python3 deploy/scripts/check-migrations.py --release  # at a release: record what ships

`deploy/released-migrations.txt` records each migration file (`services/*/*/Migrations/*.sql`)
a release shipped, with the SHA-256 of its text: the checksum each service's migrator keeps in
`<schema>.schema_migrations`. A recorded file must stay as it is. A migration not recorded yet
may only add (tables, columns that are nullable or have a default, indexes, functions, rows): a
statement that takes away or tightens what the previous release's code relies on (dropping or
renaming a table, column, schema, type, function or view; changing a column's type; `SET NOT
NULL`; a new `NOT NULL` column without a default; a new constraint on a table the migration did
not create, other than one it drops and adds again under the same name) is refused, unless the file says why it is safe now in a line `-- contract: ...`,
which a migration may say only once no release still running reads what it takes away
(docs/operating.md, "Upgrades"). Exit 1 with each problem named.
"""
import argparse
import hashlib
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
RECORD = "deploy/released-migrations.txt"
CONTRACT = re.compile(r"^\s*--\s*contract:\s*\S", re.MULTILINE)
# Statements that take away or tighten, on SQL with its comments removed.
TAKING = [
    (re.compile(r"\bDROP\s+(TABLE|COLUMN|SCHEMA|TYPE|FUNCTION|VIEW|MATERIALIZED\s+VIEW)\b", re.I), "drops a {0}"),
    (re.compile(r"\bALTER\s+TABLE\b[^;]*?\bDROP\s+(?!CONSTRAINT\b|DEFAULT\b|NOT\s+NULL\b|INDEX\b|COLUMN\b|IDENTITY\b|EXPRESSION\b)(\w+)", re.I),
     "drops column {0}"),
    (re.compile(r"\bRENAME\b", re.I), "renames"),
    (re.compile(r"\bALTER\s+COLUMN\s+(\w+)\s+(SET\s+DATA\s+)?TYPE\b", re.I), "changes the type of column {0}"),
    (re.compile(r"\bALTER\s+COLUMN\s+(\w+)\s+SET\s+NOT\s+NULL\b", re.I), "makes column {0} NOT NULL"),
]
ADD_COLUMN = re.compile(r"\bADD\s+(?:COLUMN\s+)?(?:IF\s+NOT\s+EXISTS\s+)?(\w+)\s+([^,;]*)", re.I)
ALTER_TABLE = re.compile(r"\bALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?(?:ONLY\s+)?([\w.]+)([^;]*)", re.I)
CREATE_TABLE = re.compile(r"\bCREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([\w.]+)", re.I)


def checksum(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def migrations(root):
    return sorted(p for p in root.glob("services/*/*/Migrations/*.sql"))


def read_record(root):
    record = {}
    path = root / RECORD
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                name, digest = line.split()
                record[name] = digest
    return record


def without_comments(sql):
    sql = re.sub(r"/\*.*?\*/", " ", sql, flags=re.S)
    return re.sub(r"--[^\n]*", " ", sql)


def takings(sql):
    """What the migration takes away or tightens, each as a phrase."""
    text = without_comments(sql)
    found = []
    for pattern, what in TAKING:
        for match in pattern.finditer(text):
            found.append(what.format(*(g for g in match.groups() if g)).lower() if "{0}" in what else what)
    created = {m.group(1).lower() for m in CREATE_TABLE.finditer(text)}
    dropped = {m.group(1).lower() for m in re.finditer(r"\bDROP\s+CONSTRAINT\s+(?:IF\s+EXISTS\s+)?(\w+)", text, re.I)}
    for match in ALTER_TABLE.finditer(text):
        table, rest = match.group(1).lower(), match.group(2)
        if table in created:
            continue
        for column in ADD_COLUMN.finditer(rest):
            name, definition = column.group(1), column.group(2)
            if name.upper() == "CONSTRAINT":
                # A constraint dropped and added again under its name is a replacement, most often a
                # CHECK's list of values widened; a new name is a new rule.
                constraint = definition.split()[0].lower() if definition.split() else ""
                if constraint not in dropped:
                    found.append(f"adds constraint {constraint} to {table}")
            elif re.search(r"\bNOT\s+NULL\b", definition, re.I) and not re.search(r"\bDEFAULT\b", definition, re.I):
                found.append(f"adds NOT NULL column {name} without a default to {table}")
        if re.search(r"\bADD\s+(CHECK|UNIQUE|FOREIGN\s+KEY|PRIMARY\s+KEY|EXCLUDE)\b", rest, re.I):
            found.append(f"adds a constraint to {table}")
    return found


def problems(root):
    record = read_record(root)
    found = []
    present = {str(p.relative_to(root)): p for p in migrations(root)}
    for name, digest in record.items():
        if name not in present:
            found.append(f"{name}: shipped in a release, now missing (add a new migration instead)")
        elif checksum(present[name]) != digest:
            found.append(f"{name}: shipped in a release, now edited (add a new migration instead)")
    for name, path in present.items():
        if name in record:
            continue
        sql = path.read_text()
        taken = takings(sql)
        if taken and not CONTRACT.search(sql):
            found.append(f"{name}: {'; '.join(taken)}: the previous release's code may still use it. "
                         "Expand now and contract in a later release, or say why it is safe in a '-- contract:' line")
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=pathlib.Path, default=ROOT)
    parser.add_argument("--release", action="store_true", help=f"record every migration as shipped in {RECORD}")
    args = parser.parse_args()
    if args.release:
        lines = [f"{p.relative_to(args.root)} {checksum(p)}" for p in migrations(args.root)]
        (args.root / RECORD).write_text(
            "# The migrations the latest release shipped, with the SHA-256 of each file: written by\n"
            "# deploy/scripts/check-migrations.py --release, read by the same script in make test.\n"
            + "\n".join(lines) + "\n")
        print(f"check-migrations: recorded {len(lines)} migrations in {RECORD}")
        return 0
    found = problems(args.root)
    for problem in found:
        print(f"check-migrations: {problem}", file=sys.stderr)
    if found:
        return 1
    print(f"check-migrations: {len(migrations(args.root))} migrations; the unreleased ones only expand")
    return 0


if __name__ == "__main__":
    sys.exit(main())
