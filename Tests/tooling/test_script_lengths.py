"""No shell script is over 200 lines, counting the files it sources (recursively).

A script that sources lib.sh carries lib.sh's lines too, so the limit is on what a reader must
hold to follow one script. The scripts are `git ls-files '*.sh'` and `.ci/run`.
"""
import pathlib
import re
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
LIMIT = 200
# `source PATH` or `. PATH` at the start of a command.
SOURCE = re.compile(r"""^\s*(?:source|\.)\s+("[^"]*(?:"[^"]*"[^"]*)*"|\S+)""")


def sourced(script, root):
    """The files `script` sources, as paths: only those a path under `root` names."""
    found = []
    for line in script.read_text(errors="replace").splitlines():
        match = SOURCE.match(line)
        if not match:
            continue
        text = match.group(1)
        for dir_of_script in ('$(dirname "${BASH_SOURCE[0]}")', '$(dirname "$0")', "${BASH_SOURCE%/*}"):
            text = text.replace(dir_of_script, str(script.parent))
        text = text.replace("${SCRIPTS_DIR}", "$SCRIPTS_DIR").replace("$SCRIPTS_DIR", str(root / "deploy/scripts"))
        text = text.replace("${REPO_ROOT}", "$REPO_ROOT").replace("$REPO_ROOT", str(root))
        path = pathlib.Path(text.replace('"', "").replace("'", ""))
        if not path.is_absolute():
            path = root / path
        if "$" not in str(path) and path.is_file() and root in path.resolve().parents:
            found.append(path.resolve())
    return found


def lines_with_sources(script, root=ROOT, seen=None):
    """The lines of `script` and of every file it sources, each file counted once."""
    seen = set() if seen is None else seen
    script = script.resolve()
    if script in seen:
        return 0
    seen.add(script)
    total = len(script.read_text(errors="replace").splitlines())
    for path in sourced(script, root):
        total += lines_with_sources(path, root, seen)
    return total


def scripts(root=ROOT):
    listed = subprocess.run(["git", "ls-files", "*.sh", ".ci/run"], cwd=root, capture_output=True, text=True,
                            check=True).stdout.split()
    # Untracked scripts next to tracked ones count as well: a new script is checked before it is added.
    untracked = subprocess.run(["git", "ls-files", "--others", "--exclude-standard", "*.sh"], cwd=root,
                               capture_output=True, text=True, check=True).stdout.split()
    return sorted({root / name for name in listed + untracked if (root / name).is_file()})


def over_limit(root=ROOT):
    return [f"{path.relative_to(root)}: {count} lines with what it sources (limit {LIMIT})"
            for path in scripts(root) if (count := lines_with_sources(path, root)) > LIMIT]


def test_no_script_is_over_the_limit_with_what_it_sources():
    problems = over_limit()
    assert not problems, "\n".join(problems)


def test_a_script_sourcing_a_long_file_is_over(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib/long.sh").write_text("# shellcheck shell=bash\n" + "true\n" * 150)
    (tmp_path / "lib/inner.sh").write_text('source "$(dirname "${BASH_SOURCE[0]}")/long.sh"\n' + "true\n" * 9)
    script = tmp_path / "run.sh"
    script.write_text('#!/usr/bin/env bash\nsource "$(dirname "${BASH_SOURCE[0]}")/lib/inner.sh"\n'
                      '. lib/long.sh\n' + "echo\n" * 47)
    # 50 of its own, 10 of inner.sh and 151 of long.sh, counted once though sourced twice.
    assert lines_with_sources(script, tmp_path) == 211
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "add", "."], cwd=tmp_path, check=True)
    assert over_limit(tmp_path) == ["run.sh: 211 lines with what it sources (limit 200)"]


def test_a_path_outside_the_repository_or_made_at_run_time_is_not_followed(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text('source /etc/os-release\nsource "$HOME/x.sh"\nsource "$1"\necho\n')
    assert lines_with_sources(script, tmp_path) == 4
