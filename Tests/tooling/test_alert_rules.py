"""alert-rules.py, the alerts step's checks of deploy/observability/alerts.yml: the shipped rules
pass, and a broken runbook link, a missing test case or a metric nobody exports is named."""
import pathlib
import shutil

import pytest

import script_module

ROOT = pathlib.Path(__file__).resolve().parents[2]
alert_rules = script_module.load("deploy/scripts/alert-rules.py")


@pytest.fixture
def tree(tmp_path):
    for relative in ["deploy/observability/alerts.yml", "deploy/observability/alerts.test.yml", "docs/operating.md"]:
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / relative, tmp_path / relative)
    return tmp_path


def problems(tree):
    obs = tree / "deploy/observability"
    return alert_rules.runbook_problems(tree, obs / "alerts.yml", obs / "alerts.test.yml")


def edit(path, old, new):
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def test_the_shipped_rules_have_runbooks_and_tests(tree):
    assert problems(tree) == []


def test_a_runbook_link_to_a_missing_heading_is_named(tree):
    edit(tree / "docs/operating.md", "### BackplaneDeadLetters", "### Dead letters")
    assert problems(tree) == [
        "BackplaneDeadLetters: runbook_url 'docs/operating.md#backplanedeadletters': "
        "no heading with anchor #backplanedeadletters in docs/operating.md"]


def test_a_rule_without_a_quiet_case_is_named(tree):
    edit(tree / "deploy/observability/alerts.test.yml",
         "      - eval_time: 5m\n        alertname: BackplaneDeadLetters\n        exp_alerts: []\n", "")
    assert problems(tree) == ["BackplaneDeadLetters: no test case in alerts.test.yml where it stays quiet"]


def test_the_anchor_is_githubs():
    assert alert_rules.slug(" Alerts and `runbooks`: what to do ") == "alerts-and-runbooks-what-to-do"


@pytest.mark.parametrize("expr, names", [
    ('sum by (service) (rate(hb_requests{http_route!="/readyz", code=~"5.."}[5m])) > 0.05',
     {"hb_requests"}),
    ("a_total unless a_total offset 15m or on (job) up == 0", {"a_total", "up"}),
    ("max without (instance) (backplane_jobs{state=\"dead\"}) > bool 0", {"backplane_jobs"}),
])
def test_the_metrics_an_expression_reads(expr, names):
    assert alert_rules.metric_names(expr) == names


def test_a_metric_in_no_scrape_is_named_and_up_is_not(tmp_path):
    rules = tmp_path / "alerts.yml"
    rules.write_text("groups:\n  - name: g\n    rules:\n"
                     "      - alert: A\n        expr: up == 0 or present_total > 0 or absent_total > 0\n")
    scrape = tmp_path / "one.prom"
    scrape.write_text("# TYPE present_total counter\npresent_total{service=\"x\"} 1\n")
    assert alert_rules.metric_problems([scrape], rules) == ["A: absent_total is in no scrape of the running system"]
