#!/usr/bin/env python3
"""No service's contract depends on another service's contract.

    python3 deploy/scripts/check-contracts.py [--manifest FILE]

A contract (`<Name>Contract`) is what the callers of one service build against. It depends on
`Contract` (the wire) and `CommonContract` (the value types two or more services share: money,
postal addresses, recipients) and on nothing else: not on another service's contract, not on a
package. `CommonContract` depends on `Contract` at most. A service's own target may use any
contract. This reads the targets and their dependencies from `swift package dump-package` (the
manifest as SwiftPM evaluates it, `service(...)` and the other helpers included; nothing is
built), or from FILE, a saved copy of that output, and prints one line per dependency a contract
may not have, naming the contract. Exit 1 when there is one. Run by `make test` (its imports
step); its failing fixtures are in Tests/tooling/test_contracts.py.
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WIRE = "Contract"
COMMON = "CommonContract"


def package(root=ROOT):
    """The manifest as SwiftPM reads it (its helpers evaluated): `swift package dump-package`."""
    out = subprocess.run(["swift", "package", "dump-package"], cwd=root, check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def dependencies(target):
    """The names of the target's dependencies: targets by name, `.target(name:)` and products."""
    names = []
    for dependency in target.get("dependencies", []):
        for kind in ("byName", "target", "product"):
            if kind in dependency:
                names.append(dependency[kind][0])
    return names


def check(manifest):
    """One line per dependency a contract target may not have, naming the contract."""
    problems = []
    for target in manifest.get("targets", []):
        name = target["name"]
        if not name.endswith(WIRE) or name == WIRE:
            continue
        if name == COMMON:
            allowed, rule = {WIRE}, f"{COMMON} depends on {WIRE} only"
        else:
            allowed = {WIRE, COMMON}
            rule = (f"a service's contract depends on {WIRE} and {COMMON} only"
                    f" (what two services share goes into {COMMON})")
        for dependency in dependencies(target):
            if dependency not in allowed:
                problems.append(f"{name} depends on {dependency}: {rule}")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--manifest", type=argparse.FileType("r"),
                        help="a saved `swift package dump-package` output (default: run it)")
    arguments = parser.parse_args()
    manifest = json.load(arguments.manifest) if arguments.manifest else package()
    problems = check(manifest)
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} dependency(ies) a contract may not have", file=sys.stderr)
        return 1
    print("every contract depends on Contract and CommonContract only")
    return 0


if __name__ == "__main__":
    sys.exit(main())
