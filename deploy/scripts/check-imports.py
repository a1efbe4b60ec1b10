#!/usr/bin/env python3
"""Every Swift target imports only modules it declares in Package.swift.

SwiftPM lets a target import any module built before it (a dependency's dependency, for
instance), so a missing declaration goes unnoticed until the graph changes. This reads the
targets, their paths and dependencies from Package.swift, the `import` lines of their files, and
prints each import of a module the target does not declare (the toolchain's own modules aside).
Exit 1 when there is one. Run by `make test`; alone: `python3 deploy/scripts/check-imports.py`.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Modules of the toolchain and the OS, never declared.
SYSTEM = {"Foundation", "FoundationEssentials", "Glibc", "Musl", "Darwin", "Dispatch", "Synchronization",
          "Testing", "XCTest", "_Concurrency", "Observation", "RegexBuilder", "CoreFoundation", "os",
          "FoundationNetworking"}


def targets(package: str):
    for match in re.finditer(r'\.(?:target|testTarget|executableTarget)\(\s*name:\s*"([^"]+)"', package):
        start = match.end()
        depth, index = 1, start
        while depth:
            depth += {"(": 1, ")": -1}.get(package[index], 0)
            index += 1
        body = package[start:index]
        path = re.search(r'path:\s*"([^"]+)"', body)
        deps = re.search(r'dependencies:\s*\[', body)
        declared = set()
        if deps:
            depth, j = 1, deps.end()
            while depth:
                depth += {"[": 1, "]": -1}.get(body[j], 0)
                j += 1
            text = body[deps.end():j - 1]
            for product in re.findall(r'\.product\(\s*name:\s*"([^"]+)"', text):
                declared.add(product)
            text = re.sub(r'\.product\([^)]*\)', "", text)
            declared.update(re.findall(r'"([^"]+)"', text))
        yield match.group(1), (path.group(1) if path else None), declared


def main() -> int:
    package = open(os.path.join(ROOT, "Package.swift"), encoding="utf-8").read()
    system_libraries = re.finditer(r'\.systemLibrary\(\s*name:\s*"([^"]+)",\s*path:\s*"([^"]+)"', package)
    beside = {}
    for match in system_libraries:
        mapfile = os.path.join(ROOT, match.group(2), "module.modulemap")
        if os.path.exists(mapfile):
            for module in re.findall(r'^\s*module\s+(\w+)', open(mapfile, encoding="utf-8").read(), re.M):
                if module != match.group(1):
                    beside[module] = match.group(1)
    problems = []
    for name, path, declared in targets(package):
        if path is None:
            continue
        declared = declared | {module for module, owner in beside.items() if owner in declared}
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
                    if module in SYSTEM or module == name or module in declared:
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
