#!/usr/bin/env python3
"""Every Swift target imports only modules it declares in Package.swift.

SwiftPM lets a target import any module built before it (a dependency's dependency, for
instance), so a missing declaration goes unnoticed until the graph changes. This reads the
targets, their paths and dependencies from `swift package dump-package`, the `import` lines of their files, and
prints each import of a module the target does not declare (the toolchain's own modules aside).
Exit 1 when there is one. Run by `make test`; alone: `python3 deploy/scripts/check-imports.py`.
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Modules of the toolchain and the OS, never declared.
SYSTEM = {"Foundation", "FoundationEssentials", "Glibc", "Musl", "Darwin", "Dispatch", "Synchronization",
          "Testing", "XCTest", "_Concurrency", "Observation", "RegexBuilder", "CoreFoundation", "os",
          "FoundationNetworking"}


def package():
    """The manifest as SwiftPM reads it (its helpers evaluated): `swift package dump-package`."""
    out = subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def declared(target):
    names = set()
    for dependency in target.get("dependencies", []):
        for kind in ("byName", "target", "product"):
            if kind in dependency:
                names.add(dependency[kind][0])
    return names


def main() -> int:
    manifest = package()
    beside = {}
    for target in manifest["targets"]:
        if target["type"] != "system":
            continue
        mapfile = os.path.join(ROOT, target["path"], "module.modulemap")
        if os.path.exists(mapfile):
            for module in re.findall(r'^\s*module\s+(\w+)', open(mapfile, encoding="utf-8").read(), re.M):
                if module != target["name"]:
                    beside[module] = target["name"]
    problems = []
    for target in manifest["targets"]:
        name, path = target["name"], target.get("path")
        if path is None or target["type"] == "system":
            continue
        declared_here = declared(target)
        declared_here |= {module for module, owner in beside.items() if owner in declared_here}
        for folder, _, files in os.walk(os.path.join(ROOT, path)):
            for file in files:
                if not file.endswith(".swift"):
                    continue
                full = os.path.join(folder, file)
                for number, line in enumerate(open(full, encoding="utf-8"), 1):
                    stripped = line.strip()
                    if stripped and not re.match(r'(//|/\*|\*|@testable|@_exported|@preconcurrency|(public |internal |package )?import )', stripped):
                        break  # the imports are above the first declaration
                    found = re.match(r'\s*(?:@testable\s+|@_exported\s+|public\s+|internal\s+|package\s+)*import\s+(?:struct\s+|enum\s+|class\s+|func\s+)?([A-Za-z_][A-Za-z0-9_]*)', line)
                    if not found:
                        continue
                    module = found.group(1)
                    if module in SYSTEM or module == name or module in declared_here:
                        continue
                    problems.append(f"{os.path.relpath(full, ROOT)}:{number}: {name} imports {module}, not in its dependencies")
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} undeclared import(s)", file=sys.stderr)
        return 1
    print("every target imports only what it declares")
    return 0


if __name__ == "__main__":
    sys.exit(main())
