#!/usr/bin/env python3
"""Writes deploy/haproxy/repeatable.map, the operations the balancer may send to another gateway
when the one it chose died before answering, from the OpenAPI document's `x-backplane:
{repeatable: true}`.

    python3 deploy/scripts/repeatable-map.py [--check]

A line per repeatable operation: a regular expression over METHOD followed by the path
(`^POST/v1/orders/[^/]+/cancel$`), which HAProxy matches with `map_reg` against the request's
method and path (deploy/haproxy/*.cfg). A path parameter matches one segment.

--check compares the generated text with the committed map and exits 1 when they differ (run
without --check to rewrite it).
"""
import argparse
import pathlib
import re
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCUMENT = ROOT / "services/gateway/GatewayService/openapi.yaml"
OUTPUT = ROOT / "deploy/haproxy/repeatable.map"
METHODS = ("get", "head", "options", "put", "post", "patch", "delete")


def pattern(method, path):
    """The map key of one operation."""
    parts = re.split(r"(\{[^}/]+\})", path)
    body = "".join("[^/]+" if part.startswith("{") else re.escape(part) for part in parts)
    return f"^{method.upper()}{body}$"


def generate(document):
    lines = [
        "# The operations the balancer may send again to another gateway when the one it chose died",
        "# before answering: openapi.yaml's x-backplane repeatable: true. Written by",
        "# deploy/scripts/repeatable-map.py; make test checks it is current.",
    ]
    for path, operations in document["paths"].items():
        for method in METHODS:
            operation = operations.get(method)
            if isinstance(operation, dict) and (operation.get("x-backplane") or {}).get("repeatable") is True:
                lines.append(f"{pattern(method, path)} 1")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the committed map is not current")
    arguments = parser.parse_args()
    text = generate(yaml.safe_load(DOCUMENT.read_text()))
    if arguments.check:
        if not OUTPUT.exists() or OUTPUT.read_text() != text:
            print(f"repeatable-map: {OUTPUT.relative_to(ROOT)} is not current; run deploy/scripts/repeatable-map.py")
            return 1
        print(f"repeatable-map: {OUTPUT.relative_to(ROOT)} matches the document ({text.count(chr(10)) - 3} operations)")
        return 0
    OUTPUT.write_text(text)
    print(f"repeatable-map: wrote {OUTPUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
