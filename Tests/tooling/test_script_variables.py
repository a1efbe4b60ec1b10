"""The scripts' renamed variables: lib.sh's renamed_variable, and the scripts that use it.

Nothing is started: renamed_variable runs in a bare bash, and the scripts are only read.
"""
import os
import pathlib
import re
import subprocess

import pytest

import script_module

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "deploy/scripts"

# Former name -> (new name, the script that reads it).
RENAMED = {
    "SETTLE_SECONDS": ("SETTLE_S", "fault-run.sh"),
    "STUCK_SECONDS": ("STUCK_S", "fault-run.sh"),
    "LOAD_SECONDS": ("LOAD_S", "bench-civic.sh"),
    "WRK_SECONDS": ("WRK_S", "bench-gateway.sh"),
}


def renamed_variable(**env):
    """Runs `renamed_variable OLD_SECONDS NEW_S; echo "$NEW_S"` with only `env` of the two set."""
    environment = {k: v for k, v in os.environ.items() if k not in ("OLD_SECONDS", "NEW_S")}
    environment.update(env)
    return subprocess.run(
        ["bash", "-c", 'source deploy/scripts/lib.sh; renamed_variable OLD_SECONDS NEW_S; echo "$NEW_S"'],
        cwd=ROOT, env=environment, capture_output=True, text=True, timeout=30)


def test_the_former_name_sets_the_new_one_with_a_warning():
    out = renamed_variable(OLD_SECONDS="7")
    assert out.returncode == 0, out.stderr
    assert out.stdout == "7\n"
    assert "warning" in out.stderr and "OLD_SECONDS" in out.stderr and "NEW_S" in out.stderr


def test_the_new_name_is_exported_like_the_former_one():
    environment = {k: v for k, v in os.environ.items() if k not in ("OLD_SECONDS", "NEW_S")}
    environment["OLD_SECONDS"] = "7"
    out = subprocess.run(
        ["bash", "-c", 'source deploy/scripts/lib.sh; renamed_variable OLD_SECONDS NEW_S; bash -c \'echo "$NEW_S"\''],
        cwd=ROOT, env=environment, capture_output=True, text=True, timeout=30)
    assert out.stdout == "7\n", out.stderr


def test_the_new_name_wins_and_the_former_is_said_to_be_ignored():
    out = renamed_variable(OLD_SECONDS="7", NEW_S="9")
    assert out.returncode == 0, out.stderr
    assert out.stdout == "9\n"
    assert "warning" in out.stderr and "NEW_S" in out.stderr
    assert re.search(r"OLD_SECONDS[^\n]*ignored", out.stderr), out.stderr


def test_neither_set_leaves_both_unset_without_a_warning():
    out = renamed_variable()
    assert out.returncode == 0, out.stderr
    assert out.stdout == "\n"
    assert out.stderr == ""


def script_variables():
    return script_module.load(SCRIPTS / "settings-doc.py").script_variables()


@pytest.mark.parametrize("old", sorted(RENAMED))
def test_a_script_declares_the_new_name_and_still_takes_the_former(old):
    new, script = RENAMED[old]
    declared = [name for name, _ in script_variables().get(script, [])]
    assert new in declared, f"{script}'s header does not declare {new}: {declared}"
    assert old not in declared
    text = (SCRIPTS / script).read_text()
    call = re.search(rf"^renamed_variable {old} {new}$", text, re.MULTILINE)
    assert call, f"{script} does not call renamed_variable {old} {new}"
    # Before the default is applied, and no code line reads the former name any more.
    default = re.search(rf"\$\{{{new}:?=", text)
    assert default and call.start() < default.start(), f"{script}: renamed_variable must come before {new}'s default"
    code = [line for line in text.splitlines() if not line.lstrip().startswith("#") and not line.startswith("renamed_variable ")]
    assert not any(re.search(rf"\b{old}\b", line) for line in code), f"{script} still reads {old}"


def test_no_script_variable_is_named_in_seconds_minutes_or_hours():
    for path in sorted(SCRIPTS.glob("*.sh")):
        for match in re.finditer(r"\$\{?([A-Z][A-Z0-9_]*_(?:SECONDS|MINUTES|HOURS))\b", path.read_text()):
            pytest.fail(f"{path.name}: {match.group(1)}: name a duration _MS or _S")


def test_the_former_name_works_in_a_real_script():
    """fault-run.sh's STUCK_SECONDS reaches STUCK_S: its own renamed_variable call and default,
    run as they stand in the script (the rest needs the system), give the value it then passes on."""
    text = (SCRIPTS / "fault-run.sh").read_text()
    lines = [line for line in text.splitlines()
             if line.startswith("renamed_variable STUCK_SECONDS ") or line.startswith(': "${STUCK_S:=')]
    assert len(lines) == 2, lines
    environment = {k: v for k, v in os.environ.items() if k not in ("STUCK_SECONDS", "STUCK_S")}
    environment["STUCK_SECONDS"] = "42"
    out = subprocess.run(["bash", "-c", "set -euo pipefail; source deploy/scripts/lib.sh; "
                          + "; ".join(lines) + '; echo "$STUCK_S"'],
                         cwd=ROOT, env=environment, capture_output=True, text=True, timeout=30)
    assert out.stdout == "42\n", out.stderr
    assert "STUCK_SECONDS" in out.stderr and "STUCK_S" in out.stderr
