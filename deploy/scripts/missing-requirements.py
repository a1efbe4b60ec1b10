#!/usr/bin/env python3
"""Prints the requirement lines of the given requirements files (and pytest) that the current
python3 does not satisfy, version specifiers honoured (bootstrap.sh). It uses the `packaging`
copy vendored inside pip, so it needs nothing installed first.

    python3 deploy/scripts/missing-requirements.py FILE...
"""
import sys
from importlib import metadata
try:
    from packaging.requirements import Requirement
except ImportError:
    from pip._vendor.packaging.requirements import Requirement

lines = ["pytest"]
for path in sys.argv[1:]:
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line and not line.startswith("-"):
                lines.append(line)
for line in lines:
    req = Requirement(line)
    if req.marker is not None and not req.marker.evaluate():
        continue
    try:
        version = metadata.version(req.name)
    except metadata.PackageNotFoundError:
        print(line)
        continue
    if req.specifier and not req.specifier.contains(version, prereleases=True):
        print(line)
