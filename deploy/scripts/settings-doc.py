#!/usr/bin/env python3
"""Writes docs/settings.md, the reference of every setting, from the declarations themselves.

    python3 deploy/scripts/settings-doc.py --bin-dir DIR [--check]

- The executables' settings: each server process of deploy/services.txt, and make up's
  supervisor backplane-up, prints the settings it declares (`--settings-json`, from its
  ProcessSpec); every `Setting("NAME", ...)` in the Swift sources must belong to one of them.
- The scripts' variables: the "Environment" section of each deploy/scripts/*.sh header, lines
  `#   NAME  what it does` (continued on deeper-indented lines); every variable a script reads
  with a default (`${NAME:-…}`, `${NAME:=…}`) must be declared there, in a script that runs it,
  or be a setting of an executable.

--check compares the generated text with the committed docs/settings.md and exits 1 when they
differ (run without --check to rewrite it).
"""
import argparse
import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUTPUT = ROOT / "docs/settings.md"

# Variables the scripts set for themselves (or take from the shell), not settings of an operator.
INTERNAL = {"LOG_TAG", "OUT", "UP_PID", "BENCH_LOG", "PG_DIR", "PATH", "HOME"}


def registry():
    entries = []
    for line in (ROOT / "deploy/services.txt").read_text().splitlines():
        fields = line.split()
        if fields and not fields[0].startswith("#"):
            entries.append((fields[0], fields[1]))
    return entries


def executable_settings(bin_dir):
    specs = []
    for name, kind in registry():
        if kind == "tool":
            continue
        exe = pathlib.Path(bin_dir) / name
        if not exe.exists():
            raise SystemExit(f"settings-doc: {exe} does not exist: build first (swift build) or pass --bin-dir")
        out = subprocess.run([str(exe), "--settings-json"], capture_output=True, text=True, timeout=60)
        if out.returncode != 0:
            raise SystemExit(f"settings-doc: {exe} --settings-json failed: {out.stderr.strip()}")
        spec = json.loads(out.stdout)
        spec["kind"] = kind
        specs.append(spec)
    # make up's supervisor (tools/up): no server of the registry, but its settings are make up's.
    exe = pathlib.Path(bin_dir) / "backplane-up"
    if not exe.exists():
        raise SystemExit(f"settings-doc: {exe} does not exist: build first (swift build) or pass --bin-dir")
    spec = json.loads(subprocess.run([str(exe), "--settings-json"], capture_output=True, text=True, timeout=60,
                                     check=True).stdout)
    spec["kind"] = "supervisor"
    specs.append(spec)
    return specs


def declared_in_sources():
    names = set()
    for path in list((ROOT / "services").rglob("*.swift")) + list((ROOT / "shared").rglob("*.swift")):
        text = path.read_text(errors="replace")
        for match in re.finditer(r'Setting\(\s*"([A-Z][A-Z0-9_]*)"', text):
            names.add((match.group(1), str(path.relative_to(ROOT))))
    return names


ENTRY = re.compile(r"^#   ([A-Z][A-Za-z0-9_]*(?:_<[a-z]+>)?)(?:=\S*)?(?:\s{2,}|\s*$)(.*)$")


def script_variables():
    """{script: [(name, text)]} from the Environment sections of the scripts' headers."""
    result = {}
    for path in sorted((ROOT / "deploy/scripts").glob("*.sh")):
        lines = path.read_text().splitlines()
        entries = []
        inside = False
        for line in lines[1:]:
            if not line.startswith("#"):
                break
            if re.match(r"^# ?Environment\b", line):
                inside = True
                continue
            if not inside:
                continue
            if re.match(r"^# ?\S", line):  # a new section of the header
                inside = bool(re.match(r"^# ?(Environment|Settings)\b", line))
                continue
            match = ENTRY.match(line)
            if match:
                entries.append([match.group(1), match.group(2).strip()])
            elif entries and re.match(r"^#\s{4,}\S", line):
                entries[-1][1] = (entries[-1][1] + " " + line[1:].strip()).strip()
        if entries:
            result[path.name] = [tuple(e) for e in entries]
    return result


def variables_read():
    """{NAME: {script, ...}} for every variable a script or the Makefile reads with a default."""
    read = {}
    for path in sorted((ROOT / "deploy/scripts").glob("*.sh")):
        for match in re.finditer(r"\$\{([A-Z][A-Z0-9_]*):?[-=]", path.read_text()):
            read.setdefault(match.group(1), set()).add(path.name)
    return read


def cell(text):
    return (text or "").replace("|", "\\|").replace("\n", " ")


def render(specs, scripts):
    out = []
    add = out.append
    add("# Settings")
    add("")
    add("Every setting is an environment variable. This page is generated from the declarations in the")
    add("code (`make settings-doc`, i.e. `deploy/scripts/settings-doc.py`) and `make test` fails when it")
    add("is out of date: edit the declaration, not this page. `<executable> --help` prints the same for")
    add("one process.")
    add("")
    add("Durations are named by their unit: `_MS` for milliseconds, `_S` for seconds. A secret's default")
    add("is shown with its password masked; secrets are never logged. A secret (marked **Secret.**) can")
    add("also be given as a file: `NAME_FILE` names a file holding it (as Docker and Kubernetes mount")
    add("secrets), its trailing line break dropped; giving both forms, or a file that cannot be read or")
    add("is empty, stops the process at start naming `NAME_FILE`.")
    add("")
    renamed = [(f["name"], s["name"], f["scale"]) for spec in specs for s in spec["settings"] for f in s.get("formerly", [])]
    if renamed:
        add("## Former names")
        add("")
        add("These names still work, converted to the new unit, and the process logs a warning at start")
        add("naming the new one. When both are set, the new name wins.")
        add("")
        add("| former name | use instead | conversion |")
        add("|---|---|---|")
        for old, new, scale in sorted(set(renamed)):
            add(f"| `{old}` | `{new}` | {'same value' if scale == 1 else f'value × {scale:,}'} |")
        add("")
    # Settings every worker reads are listed once.
    workers = [spec for spec in specs if spec["kind"] == "worker"]
    common = None
    for spec in workers:
        names = [s["name"] for s in spec["settings"]]
        common = names if common is None else [n for n in common if n in names]
    common = common or []
    by_name = {s["name"]: s for spec in specs for s in spec["settings"]}

    def table(settings):
        add("| setting | default | what it does |")
        add("|---|---|---|")
        for s in settings:
            default = s.get("default")
            shown = "(unset)" if default is None else ("(empty)" if default == "" else f"`{cell(default)}`")
            secret = " **Secret.**" if s.get("secret") else ""
            add(f"| `{s['name']}` | {shown} | {cell(s['help'])}{secret} |")
        add("")

    add("## Every service")
    add("")
    add("Read by every MDP service (" + ", ".join(f"`{w['name']}`" for w in workers) + ").")
    add("")
    table([by_name[n] for n in common])
    for spec in specs:
        own = [s for s in spec["settings"] if spec["kind"] != "worker" or s["name"] not in common]
        add(f"## {spec['name']}")
        add("")
        add(cell(spec["summary"]))
        if spec["kind"] == "worker":
            add("")
            add("Besides the settings of every service:")
        add("")
        table(own)
    add("## Scripts")
    add("")
    add("The variables of the scripts behind `make` (deploy/scripts), from each script's header. The")
    add("executables' settings above pass through them to the processes they start.")
    add("")
    for script, entries in scripts.items():
        add(f"### {script}")
        add("")
        add("| variable | what it does |")
        add("|---|---|")
        for name, text in entries:
            add(f"| `{name}` | {cell(text)} |")
        add("")
    return "\n".join(out).rstrip() + "\n"


def problems_with(specs, scripts):
    problems = []
    known = {s["name"] for spec in specs for s in spec["settings"]}
    known |= {f["name"] for spec in specs for s in spec["settings"] for f in s.get("formerly", [])}
    for name, path in sorted(declared_in_sources()):
        if name not in known:
            problems.append(f"{path}: setting {name} is declared but no executable lists it in its ProcessSpec")
    for spec in specs:
        for s in spec["settings"]:
            if re.search(r"_(SECONDS|MINUTES|HOURS|DAYS|SEC|MIN)$", s["name"]):
                problems.append(f"{spec['name']}: {s['name']}: name a duration _MS or _S")
    declared = {name.split("_<")[0] for entries in scripts.values() for name, _ in entries}
    for name, users in sorted(variables_read().items()):
        if name in known or name in INTERNAL or name in declared:
            continue
        if any(name.startswith(prefix.split("_<")[0]) for prefix in declared if "_<" in prefix):
            continue
        problems.append(f"{', '.join(sorted(users))}: reads {name} but no script header declares it")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    specs = executable_settings(args.bin_dir)
    scripts = script_variables()
    problems = problems_with(specs, scripts)
    for problem in problems:
        print(f"settings-doc: {problem}", file=sys.stderr)
    text = render(specs, scripts)
    if args.check:
        current = OUTPUT.read_text() if OUTPUT.exists() else ""
        if current != text:
            print("settings-doc: docs/settings.md is out of date: run `make settings-doc` and commit it",
                  file=sys.stderr)
            return 1
        print(f"settings-doc: docs/settings.md matches the declarations "
              f"({sum(len(s['settings']) for s in specs)} settings, {sum(len(e) for e in scripts.values())} script variables)")
    else:
        OUTPUT.write_text(text)
        print(f"settings-doc: wrote {OUTPUT.relative_to(ROOT)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
