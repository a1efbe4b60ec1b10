"""The repository's own checks fail on what they are meant to catch (run by make test's docs step).

Each check is run on a copy of the files it reads, made wrong on purpose, and on the files as
they are.
"""
import pathlib
import shutil
import subprocess
import sys

import pytest

import script_module

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "deploy/scripts"


def load(name):
    return script_module.load(SCRIPTS / f"{name}.py")


@pytest.fixture
def tree(tmp_path):
    """A copy of what check-services.py reads."""
    for relative in ["deploy/services.txt", "docker-compose.yml", "deploy/observability/prometheus.yml",
                     "services/gateway/GatewayService/GatewaySettings.swift",
                     "tools/admin/AdminKit/Workers.swift"]:
        target = tmp_path / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / relative, target)
    shutil.copytree(ROOT / "deploy/k8s", tmp_path / "deploy/k8s")
    return tmp_path


def edit(path, old, new):
    text = path.read_text()
    assert old in text, f"fixture: {old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def test_services_agree_as_shipped(tree):
    assert load("check-services").check(tree) == []


def test_a_service_missing_from_prometheus_is_named(tree):
    edit(tree / "deploy/observability/prometheus.yml", "civic, social]", "civic]")
    problems = load("check-services").check(tree)
    assert any("prometheus.yml" in p and "'social'" in p for p in problems), problems


def test_a_new_service_in_the_registry_alone_is_named_everywhere(tree):
    edit(tree / "deploy/services.txt", "gateway      gateway", "ledger       worker\ngateway      gateway")
    problems = "\n".join(load("check-services").check(tree))
    assert "READINESS_SERVICES" in problems
    assert "docker-compose.yml: no service 'ledger'" in problems
    assert "deploy/k8s: no Deployment 'ledger'" in problems
    assert "prometheus.yml: 'ledger' is not scraped" in problems
    assert "tools/admin/AdminKit/Workers.swift" in problems


def test_a_k8s_deployment_of_no_registered_process_is_named(tree):
    path = tree / "deploy/k8s/services.yaml"
    text = path.read_text()
    path.write_text(text.replace("name: social", "name: socials"))
    problems = load("check-services").check(tree)
    assert any("'socials' is not in deploy/services.txt" in p for p in problems), problems


def test_settings_doc_names_a_duration_not_in_ms_or_s(monkeypatch, tmp_path):
    settings_doc = load("settings-doc")
    monkeypatch.setattr(settings_doc, "declared_in_sources", lambda: set())
    monkeypatch.setattr(settings_doc, "variables_read", lambda: {})
    specs = [{"name": "auth", "kind": "worker", "summary": "",
              "settings": [{"name": "LOGIN_HOLD_MINUTES", "default": "20", "help": "", "secret": False}]}]
    problems = settings_doc.problems_with(specs, {})
    assert any("LOGIN_HOLD_MINUTES: name a duration _MS or _S" in p for p in problems), problems


def test_settings_doc_names_a_declared_setting_no_executable_lists(monkeypatch):
    settings_doc = load("settings-doc")
    monkeypatch.setattr(settings_doc, "declared_in_sources", lambda: {("ORPHAN_S", "services/x/X.swift")})
    monkeypatch.setattr(settings_doc, "variables_read", lambda: {})
    problems = settings_doc.problems_with([], {})
    assert problems == ["services/x/X.swift: setting ORPHAN_S is declared but no executable lists it in its ProcessSpec"]


def test_settings_doc_names_a_script_variable_no_header_declares(monkeypatch):
    settings_doc = load("settings-doc")
    monkeypatch.setattr(settings_doc, "declared_in_sources", lambda: set())
    monkeypatch.setattr(settings_doc, "variables_read", lambda: {"WARMUP_S": {"bench-x.sh"}, "KNOWN": {"up.sh"}})
    problems = settings_doc.problems_with([], {"up.sh": [("KNOWN", "declared")]})
    assert problems == ["bench-x.sh: reads WARMUP_S but no script header declares it"]


def test_settings_doc_reads_a_script_header(tmp_path, monkeypatch):
    settings_doc = load("settings-doc")
    scripts = tmp_path / "deploy/scripts"
    scripts.mkdir(parents=True)
    (scripts / "x.sh").write_text(
        "#!/usr/bin/env bash\n# What x does.\n#\n# Environment:\n"
        "#   ALPHA_S          seconds to wait (default 5),\n#                    then give up\n"
        "#   REPLICAS_<name>  replicas of one process\n#\n# Output: nothing.\nset -e\n")
    monkeypatch.setattr(settings_doc, "ROOT", tmp_path)
    assert settings_doc.script_variables() == {
        "x.sh": [("ALPHA_S", "seconds to wait (default 5), then give up"),
                 ("REPLICAS_<name>", "replicas of one process")]}


def test_bench_report_check_fails_on_an_edited_table(tmp_path):
    doc = tmp_path / "benchmarks.md"
    shutil.copy(ROOT / "docs/benchmarks.md", doc)
    command = [sys.executable, str(SCRIPTS / "bench-report.py"), "--check", "--no-charts", "--doc", str(doc),
               "--dir", str(ROOT / "docs/bench")]
    assert subprocess.run(command, capture_output=True).returncode == 0
    text = doc.read_text()
    start = text.index("<!-- bench:gateway -->")
    row = text.index("\n|", start)
    doc.write_text(text[:row] + "\n| a row nobody measured |" + text[row:])
    failed = subprocess.run(command, capture_output=True, text=True)
    assert failed.returncode == 1
    assert "gateway" in failed.stdout + failed.stderr
