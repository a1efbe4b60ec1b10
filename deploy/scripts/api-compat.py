#!/usr/bin/env python3
"""The OpenAPI document keeps working for a client built against the latest release (make test's
docs step, through check-docs.sh). docs/api.md, "Compatibility and versions", states the rule.

    python3 deploy/scripts/api-compat.py [--released FILE] [--current FILE] [--changelog FILE]

Compares the current document (services/gateway/GatewayService/openapi.yaml) with the latest
release's (the newest docs/api/released/openapi-VERSION.yaml), every $ref resolved, operation by
operation (method and path; a path parameter's name is not on the wire). A break is: an operation
removed; a status code or a content type removed; a request body, a request field or a parameter
made required, or a new required one; a reply's field removed or no longer always present; a type
changed (a request accepting less, a reply sending more); a request enum narrowed; a reply enum
widened, unless the released document marks the set open (`anyOf` the listed values and any
string: `UnlistedValue`). A break is allowed only when CHANGELOG.md records it: under the current
document's version, a major version above the release's, naming the operationId, with the date
until which the previous major version stays served ("`/v1` is served until 2028-06-30"); or, for
an operation of an older major version (`/vN/...`) that the release marks deprecated, once the
date CHANGELOG.md gives for `/vN` has passed; or, for an operator surface (an operation outside
`/vN` tagged `operations`, which no app calls), when a line of the current version's section names
its operationId and says "operator surface". Prints the breaks; exits 1 on one not allowed.
"""
import argparse
import datetime
import json
import pathlib
import re
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
# "`/v1` is served until 2028-06-30": how long a major version stays served.
SERVED = re.compile(r"`/v(\d+)` (?:is|stays) served until (\d{4}-\d{2}-\d{2})")


def version(text):
    return tuple(int(part) for part in re.findall(r"\d+", str(text))[:3])


class Document:
    def __init__(self, data):
        self.data = data

    def resolve(self, node):
        """`node` with its $ref chain followed (local references only)."""
        seen = set()
        while isinstance(node, dict) and "$ref" in node:
            ref = node["$ref"]
            if ref in seen or not ref.startswith("#/"):
                raise ValueError(f"cannot resolve $ref {ref}")
            seen.add(ref)
            node = self.data
            for part in ref[2:].split("/"):
                node = node[part.replace("~1", "/").replace("~0", "~")]
        return node

    def operations(self):
        """{(METHOD, path with {} for each parameter): (operationId, operation, path item)}."""
        found = {}
        for path, item in self.data.get("paths", {}).items():
            item = self.resolve(item)
            for method in METHODS:
                if method in item:
                    op = item[method]
                    found[(method.upper(), re.sub(r"\{[^}]*\}", "{}", path))] = (op.get("operationId", path), op, item)
        return found

    def parameters(self, op, item):
        """{(in, name) or ("path", position): parameter} of an operation, its path item's included."""
        params = {}
        for raw in item.get("parameters", []) + op.get("parameters", []):
            param = self.resolve(raw)
            params[(param["in"], param["name"].lower() if param["in"] == "header" else param["name"])] = param
        paths = [p for key, p in params.items() if key[0] == "path"]
        keyed = {key: p for key, p in params.items() if key[0] != "path"}
        keyed.update({("path", i): p for i, p in enumerate(paths)})
        return keyed


def flat(doc, schema):
    """What a schema allows, composition folded in: types (None: any), enum (None: any value),
    whether the enum is an open set, properties, required names, items, additionalProperties."""
    schema = doc.resolve(schema) if schema is not None else {}
    if schema is True or schema is None:
        schema = {}
    if schema is False:
        return {"types": set(), "enum": set(), "open": False, "properties": {}, "required": set(),
                "items": None, "additional": False}
    types = schema.get("type")
    types = {types} if isinstance(types, str) else set(types) if types else None
    if types is not None and schema.get("nullable"):
        types.add("null")
    enum = {json.dumps(v) for v in schema["enum"]} if "enum" in schema else None
    if "const" in schema:
        enum = {json.dumps(schema["const"])}
    if types is None and enum is not None:
        types = {kind_of(json.loads(v)) for v in enum}
    if types is None and "properties" in schema:
        types = {"object"}
    if types is None and "items" in schema:
        types = {"array"}
    result = {"types": types, "enum": enum, "open": False, "properties": dict(schema.get("properties", {})),
              "required": set(schema.get("required", [])), "items": schema.get("items"),
              "additional": schema.get("additionalProperties")}
    for member in schema.get("allOf", []):
        part = flat(doc, member)
        if part["types"] is not None:
            result["types"] = part["types"] if result["types"] is None else result["types"] & part["types"]
        if part["enum"] is not None:
            result["enum"] = part["enum"] if result["enum"] is None else result["enum"] & part["enum"]
        result["properties"].update(part["properties"])
        result["required"] |= part["required"]
        result["items"] = result["items"] or part["items"]
    members = [flat(doc, m) for m in schema.get("anyOf", []) + schema.get("oneOf", [])]
    if members:
        kinds = [m["types"] for m in members]
        union = None if any(k is None for k in kinds) else set().union(*kinds)
        result["types"] = union if result["types"] is None or union is None else result["types"] & union
        listed = [m for m in members if m["enum"] is not None]
        if listed:
            result["enum"] = set().union(*(m["enum"] for m in listed))
            # An open set: the listed values and any string besides (UnlistedValue).
            result["open"] = len(listed) < len(members) and any(
                m["enum"] is None and m["types"] == {"string"} for m in members)
        for m in members:
            for name, prop in m["properties"].items():
                result["properties"].setdefault(name, prop)
        result["required"] |= set.intersection(*(m["required"] for m in members))
        result["items"] = result["items"] or next((m["items"] for m in members if m["items"]), None)
    return result


def kind_of(value):
    return {type(None): "null", bool: "boolean", int: "integer", float: "number", str: "string",
            list: "array", dict: "object"}[type(value)]


def within(inner, outer):
    """Every type of `inner` is one of `outer` (None: any type; an integer is a number)."""
    if outer is None:
        return True
    if inner is None:
        return False
    return all(t in outer or (t == "integer" and "number" in outer) for t in inner)


def shown(types):
    return "any type" if types is None else "/".join(sorted(types)) or "nothing"


def compare(old_doc, new_doc, old, new, sending, where, breaks, seen):
    """Appends to `breaks` what a client built against `old` finds broken in `new`. `sending`: the
    client sends this (a request), else it receives it (a reply)."""
    pair = (id(old_doc.resolve(old)) if old is not None else None,
            id(new_doc.resolve(new)) if new is not None else None, sending)
    if pair in seen:  # a schema that contains itself, or one compared already
        return
    seen.add(pair)
    a, b = flat(old_doc, old), flat(new_doc, new)
    if not (within(a["types"], b["types"]) if sending else within(b["types"], a["types"])):
        breaks.append(f"{where}: type changed from {shown(a['types'])} to {shown(b['types'])}")
        return
    # What a request may carry: an open set takes any string.
    a_takes, b_takes = (None if a["open"] else a["enum"]), (None if b["open"] else b["enum"])
    if sending and b_takes is not None and (a_takes is None or a_takes - b_takes):
        gone = "any value" if a_takes is None else ", ".join(sorted(a_takes - b_takes))
        breaks.append(f"{where}: no longer accepts {gone}")
    if not sending and a["enum"] is not None and not a["open"] and (b["enum"] is None or b["enum"] - a["enum"]):
        added = "any value" if b["enum"] is None else ", ".join(sorted(b["enum"] - a["enum"]))
        breaks.append(f"{where}: enum widened in a reply (a closed set): {added}")
    for name, prop in a["properties"].items():
        if name not in b["properties"]:
            if not sending:
                breaks.append(f"{where}.{name}: reply field removed")
            elif b["additional"] is False:
                breaks.append(f"{where}.{name}: request field removed, and unknown fields are refused")
            continue
        if not sending and name in a["required"] and name not in b["required"]:
            breaks.append(f"{where}.{name}: reply field no longer always present")
        compare(old_doc, new_doc, prop, b["properties"][name], sending, f"{where}.{name}", breaks, seen)
    if sending:
        for name in sorted(b["required"] - a["required"]):
            what = "made required" if name in a["properties"] else "new required request field"
            breaks.append(f"{where}.{name}: {what}")
        if b["additional"] is False and a["additional"] is not False:
            breaks.append(f"{where}: unknown fields are refused")
    if a["items"] is not None and b["items"] is not None:
        compare(old_doc, new_doc, a["items"], b["items"], sending, f"{where}[]", breaks, seen)
    if isinstance(a["additional"], dict) and isinstance(b["additional"], dict):
        compare(old_doc, new_doc, a["additional"], b["additional"], sending, f"{where}{{*}}", breaks, seen)


def operation_breaks(old_doc, new_doc, old_op, new_op):
    """The breaks of one operation present in both documents."""
    (_, a, a_item), (_, b, b_item) = old_op, new_op
    breaks, seen = [], set()
    old_params, new_params = old_doc.parameters(a, a_item), new_doc.parameters(b, b_item)
    for key, param in new_params.items():
        label = f"parameter {param['name']} ({param['in']})"
        if key not in old_params:
            if param.get("required"):
                breaks.append(f"{label}: new required parameter")
            continue
        if param.get("required") and not old_params[key].get("required"):
            breaks.append(f"{label}: made required")
        compare(old_doc, new_doc, old_params[key].get("schema"), param.get("schema"), True, label, breaks, seen)
    a_body = old_doc.resolve(a["requestBody"]) if "requestBody" in a else None
    b_body = new_doc.resolve(b["requestBody"]) if "requestBody" in b else None
    if b_body and b_body.get("required") and not (a_body and a_body.get("required")):
        breaks.append("request body: made required")
    if a_body and b_body:
        for kind, media in a_body.get("content", {}).items():
            if kind not in b_body.get("content", {}):
                breaks.append(f"request body: {kind} no longer accepted")
                continue
            compare(old_doc, new_doc, media.get("schema"), b_body["content"][kind].get("schema"), True,
                    f"request body ({kind})", breaks, seen)
    for status, raw in a.get("responses", {}).items():
        if status not in b.get("responses", {}):
            breaks.append(f"status {status}: removed")
            continue
        a_reply, b_reply = old_doc.resolve(raw), new_doc.resolve(b["responses"][status])
        for kind, media in a_reply.get("content", {}).items():
            if kind not in b_reply.get("content", {}):
                breaks.append(f"status {status}: {kind} no longer sent")
                continue
            compare(old_doc, new_doc, media.get("schema"), b_reply["content"][kind].get("schema"), False,
                    f"status {status} ({kind})", breaks, seen)
    return breaks


def breaks_between(old_data, new_data):
    """[(operationId, METHOD path, what broke, deprecated in the old document)]."""
    old_doc, new_doc = Document(old_data), Document(new_data)
    old_ops, new_ops = old_doc.operations(), new_doc.operations()
    found = []
    for key, old_op in old_ops.items():
        label = f"{key[0]} {key[1]}"
        deprecated = bool(old_op[1].get("deprecated"))
        if key not in new_ops:
            found.append((old_op[0], label, "operation removed", deprecated))
            continue
        found += [(old_op[0], label, what, deprecated) for what in operation_breaks(old_doc, new_doc, old_op, new_ops[key])]
    return found


def changelog_sections(text):
    """{version: the text of its section} of a Keep a Changelog file."""
    sections, current = {}, None
    for line in text.splitlines():
        match = re.match(r"^## \[([^\]]+)\]", line)
        if match:
            current = match.group(1)
            sections[current] = ""
        elif current:
            sections[current] += line + "\n"
    return sections


def judge(released, current, changelog, today=None):
    """(lines to print, problems) for a release, the current document and CHANGELOG.md's text."""
    today = today or datetime.date.today()
    sections = changelog_sections(changelog)
    old_version, new_version = str(released["info"]["version"]), str(current["info"]["version"])
    problems, lines = [], []
    if old_version not in sections:
        problems.append(f"CHANGELOG.md has no section [{old_version}], the released document's version")
    if version(new_version) < version(old_version):
        problems.append(f"info.version {new_version} is below the released {old_version}")
    section = sections.get(new_version, "")
    major_up = version(new_version)[:1] > version(old_version)[:1]
    served = {int(major): datetime.date.fromisoformat(day) for major, day in SERVED.findall(changelog)}
    tagged = {op_id: op.get("tags", []) for op_id, op, _ in Document(released).operations().values()}
    for op_id, label, what, deprecated in breaks_between(released, current):
        prefix = re.match(r"^\S+ /v(\d+)/", label)
        named = re.compile(rf"\b{re.escape(op_id)}\b")
        if major_up and SERVED.search(section) and named.search(section):
            lines.append(f"{op_id} ({label}): {what} (CHANGELOG.md [{new_version}])")
        elif (not prefix and "operations" in tagged.get(op_id, [])
              and any(named.search(line) and "operator surface" in line for line in section.splitlines())):
            lines.append(f"{op_id} ({label}): {what} (an operator surface, CHANGELOG.md [{new_version}])")
        elif (what == "operation removed" and deprecated and prefix and int(prefix.group(1)) in served
              and served[int(prefix.group(1))] < today):
            lines.append(f"{op_id} ({label}): {what} (deprecated; /v{prefix.group(1)} served until "
                         f"{served[int(prefix.group(1))]})")
        else:
            problems.append(f"{op_id} ({label}): {what}")
    return lines, problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    released_files = sorted((ROOT / "docs/api/released").glob("openapi-*.yaml"), key=lambda p: version(p.stem))
    parser.add_argument("--released", type=pathlib.Path, default=released_files[-1] if released_files else None)
    parser.add_argument("--current", type=pathlib.Path, default=ROOT / "services/gateway/GatewayService/openapi.yaml")
    parser.add_argument("--changelog", type=pathlib.Path, default=ROOT / "CHANGELOG.md")
    args = parser.parse_args()
    if args.released is None:
        sys.exit("api-compat: no released document in docs/api/released")
    released = yaml.safe_load(args.released.read_text())
    current = yaml.safe_load(args.current.read_text())
    problems = []
    if version(args.released.stem) != version(released["info"]["version"]):
        problems.append(f"{args.released.name} holds info.version {released['info']['version']}")
    lines, found = judge(released, current, args.changelog.read_text())
    problems += found
    for line in lines:
        print(f"api-compat: allowed: {line}")
    for problem in problems:
        print(f"api-compat: {problem}", file=sys.stderr)
    if problems:
        print(f"api-compat: {len(problems)} breaks of a client built against {args.released.name}, not allowed by "
              "CHANGELOG.md (docs/api.md, \"Compatibility and versions\")", file=sys.stderr)
        sys.exit(1)
    print(f"api-compat: {args.current.name} {current['info']['version']} keeps every client of "
          f"{args.released.name} working ({len(Document(released).operations())} operations compared)")


if __name__ == "__main__":
    main()
