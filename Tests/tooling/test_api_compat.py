"""api-compat.py (make test's docs step) catches each kind of change that breaks a client built
against the released document, lets additive changes through, and lets a break through only as
CHANGELOG.md records it.

Each case edits a copy of a small released document, whose schemas are reached through $refs,
as the real one's are.
"""
import copy
import datetime
import pathlib
import subprocess
import sys

import pytest
import yaml

import script_module

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "deploy/scripts/api-compat.py"
TODAY = datetime.date(2027, 6, 1)


def load():
    return script_module.load(SCRIPT)


def ref(name):
    return {"$ref": f"#/components/schemas/{name}"}


def reply(schema, status="200"):
    return {status: {"description": "x", "content": {"application/json": {"schema": schema}}},
            "404": {"$ref": "#/components/responses/Error"}}


RELEASED = {
    "openapi": "3.1.0",
    "info": {"title": "t", "version": "1.0.0"},
    "paths": {
        "/v1/orders": {"post": {
            "operationId": "createOrder",
            "parameters": [{"name": "Idempotency-Key", "in": "header", "required": True, "schema": {"type": "string"}}],
            "requestBody": {"required": True, "content": {"application/json": {"schema": ref("OrderRequest")}}},
            "responses": reply(ref("Order"), "201")}},
        "/v1/orders/{id}": {"get": {
            "operationId": "getOrder",
            "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
            "responses": reply(ref("Order"))}},
        "/v1/things": {"get": {"operationId": "listThings", "deprecated": True, "responses": reply({"type": "array"})}},
        "/metrics": {"get": {"operationId": "getMetrics", "tags": ["operations"], "responses": {
            "200": {"description": "x", "content": {"text/plain": {"schema": {"type": "string"}}}}}}},
    },
    "components": {
        "schemas": {
            "OrderRequest": {"type": "object", "required": ["kind"], "properties": {
                "kind": {"type": "string", "enum": ["postcard", "ecard"]},
                "note": {"type": ["string", "null"]}}},
            "Order": {"type": "object", "required": ["id", "state", "total"], "properties": {
                "id": {"type": "string"},
                "state": ref("OrderState"),
                "size": {"type": "string", "enum": ["A5", "A6"]},
                "total": ref("Money"),
                "lines": {"type": "array", "items": ref("Money")}}},
            "Money": {"type": "object", "required": ["amount"], "properties": {"amount": {"type": "integer"}}},
            "OrderState": {"anyOf": [ref("KnownOrderState"), ref("UnlistedValue")]},
            "KnownOrderState": {"type": "string", "enum": ["paid", "mailed"]},
            "UnlistedValue": {"type": "string"},
            "ErrorBody": {"type": "object", "required": ["code"], "properties": {"code": {"type": "string"}}},
        },
        "responses": {"Error": {"description": "x", "content": {"application/json": {"schema": ref("ErrorBody")}}}},
    },
}
CHANGELOG = "# Changelog\n\n## [Unreleased]\n\n## [1.0.0] - 2026-12-07\n\n- The first release.\n"


def judge(edit=None, changelog=CHANGELOG, today=TODAY):
    current = copy.deepcopy(RELEASED)
    if edit:
        edit(current)
    return load().judge(copy.deepcopy(RELEASED), current, changelog, today)


def schemas(doc):
    return doc["components"]["schemas"]


def test_the_same_document_passes():
    assert judge() == ([], [])


def test_the_shipped_document_keeps_the_latest_release_working():
    module = load()
    released = sorted((ROOT / "docs/api/released").glob("openapi-*.yaml"), key=lambda p: module.version(p.stem))
    assert released, "no released document in docs/api/released"
    current = yaml.safe_load((ROOT / "services/gateway/GatewayService/openapi.yaml").read_text())
    _, problems = module.judge(yaml.safe_load(released[-1].read_text()), current, (ROOT / "CHANGELOG.md").read_text())
    assert problems == []


BREAKS = {
    "an operation removed": (
        lambda d: d["paths"]["/v1/orders/{id}"].pop("get"),
        "getOrder (GET /v1/orders/{}): operation removed"),
    "a reply field removed, behind a $ref": (
        lambda d: schemas(d)["Money"]["properties"].pop("amount"),
        "getOrder (GET /v1/orders/{}): status 200 (application/json).total.amount: reply field removed"),
    "a reply field no longer always present": (
        lambda d: schemas(d)["Order"]["required"].remove("total"),
        "getOrder (GET /v1/orders/{}): status 200 (application/json).total: reply field no longer always present"),
    "a request field made required": (
        lambda d: schemas(d)["OrderRequest"]["required"].append("note"),
        "createOrder (POST /v1/orders): request body (application/json).note: made required"),
    "a new required request field": (
        lambda d: (schemas(d)["OrderRequest"]["properties"].update(currency={"type": "string"}),
                   schemas(d)["OrderRequest"]["required"].append("currency")),
        "createOrder (POST /v1/orders): request body (application/json).currency: new required request field"),
    "a new required parameter": (
        lambda d: d["paths"]["/v1/orders/{id}"]["get"]["parameters"].append(
            {"name": "fields", "in": "query", "required": True, "schema": {"type": "string"}}),
        "getOrder (GET /v1/orders/{}): parameter fields (query): new required parameter"),
    "a closed reply enum widened": (
        lambda d: schemas(d)["Order"]["properties"]["size"]["enum"].append("A4"),
        "getOrder (GET /v1/orders/{}): status 200 (application/json).size: enum widened in a reply (a closed set): \"A4\""),
    "a reply type changed, behind a $ref": (
        lambda d: schemas(d)["Money"]["properties"].update(amount={"type": "string"}),
        "getOrder (GET /v1/orders/{}): status 200 (application/json).total.amount: type changed from integer to string"),
    "a reply type changed, in an array's items": (
        lambda d: schemas(d)["Order"]["properties"]["lines"].update(items={"type": "string"}),
        "getOrder (GET /v1/orders/{}): status 200 (application/json).lines[]: type changed from object to string"),
    "a reply field made nullable": (
        lambda d: schemas(d)["Order"]["properties"].update(id={"type": ["string", "null"]}),
        "getOrder (GET /v1/orders/{}): status 200 (application/json).id: type changed from string to null/string"),
    "a request enum narrowed": (
        lambda d: schemas(d)["OrderRequest"]["properties"]["kind"]["enum"].remove("ecard"),
        "createOrder (POST /v1/orders): request body (application/json).kind: no longer accepts \"ecard\""),
    "a status code removed": (
        lambda d: d["paths"]["/v1/orders/{id}"]["get"]["responses"].pop("404"),
        "getOrder (GET /v1/orders/{}): status 404: removed"),
    "an error body's field removed, behind a response $ref": (
        lambda d: schemas(d)["ErrorBody"]["properties"].pop("code"),
        "getOrder (GET /v1/orders/{}): status 404 (application/json).code: reply field removed"),
}


@pytest.mark.parametrize("name", sorted(BREAKS))
def test_a_break_is_caught(name):
    edit, expected = BREAKS[name]
    _, problems = judge(edit)
    assert expected in problems, problems


def additive(d):
    d["paths"]["/v1/orders/{id}"]["get"]["parameters"].append(
        {"name": "fields", "in": "query", "schema": {"type": "string"}})
    d["paths"]["/v1/orders/{id}"]["get"]["responses"]["409"] = {"$ref": "#/components/responses/Error"}
    d["paths"]["/v1/orders/{id}"]["delete"] = {"operationId": "deleteOrder", "responses": reply(ref("Order"))}
    schemas(d)["OrderRequest"]["properties"]["giftWrap"] = {"type": "boolean"}
    schemas(d)["OrderRequest"]["properties"]["kind"]["enum"].append("gift")
    schemas(d)["OrderRequest"]["properties"]["note"] = {"type": ["string", "null", "integer"]}
    schemas(d)["Order"]["properties"]["createdAt"] = {"type": "string", "format": "date-time"}
    schemas(d)["Order"]["properties"]["size"]["enum"].remove("A6")
    schemas(d)["KnownOrderState"]["enum"].append("lost")  # an open set: UnlistedValue
    d["paths"]["/v1/orders/{orderId}"] = d["paths"].pop("/v1/orders/{id}")  # a path parameter's name
    d["info"]["version"] = "1.1.0"


def test_additive_changes_pass():
    assert judge(additive) == ([], [])


def breaking_v2(d):
    d["info"]["version"] = "2.0.0"
    d["paths"]["/v1/orders/{id}"].pop("get")


def test_a_break_recorded_under_a_new_major_version_with_its_served_date_passes():
    changelog = CHANGELOG.replace("## [1.0.0]", "## [2.0.0] - 2027-05-01\n\n### Removed\n\n- `getOrder`: read "
                                  "orders with `/v2`. `/v1` is served until 2028-05-01.\n\n## [1.0.0]")
    allowed, problems = judge(breaking_v2, changelog)
    assert problems == []
    assert allowed == ["getOrder (GET /v1/orders/{}): operation removed (CHANGELOG.md [2.0.0])"]


@pytest.mark.parametrize("section", [
    "- `getOrder`: read orders with `/v2`.",                     # how long the old one is served: missing
    "- Orders with `/v2`. `/v1` is served until 2028-05-01.",    # the operation: not named
])
def test_a_break_the_new_major_section_does_not_fully_record_fails(section):
    changelog = CHANGELOG.replace("## [1.0.0]", f"## [2.0.0] - 2027-05-01\n\n{section}\n\n## [1.0.0]")
    _, problems = judge(breaking_v2, changelog)
    assert problems == ["getOrder (GET /v1/orders/{}): operation removed"]


def test_a_break_recorded_without_a_new_major_version_fails():
    changelog = CHANGELOG.replace("## [1.0.0]", "## [1.1.0] - 2027-05-01\n\n- `getOrder` removed. `/v1` is served "
                                  "until 2028-05-01.\n\n## [1.0.0]")

    def edit(d):
        d["info"]["version"] = "1.1.0"
        d["paths"]["/v1/orders/{id}"].pop("get")
    _, problems = judge(edit, changelog)
    assert problems == ["getOrder (GET /v1/orders/{}): operation removed"]


def test_an_operator_surface_leaves_in_a_minor_release_when_the_changelog_says_so():
    def edit(d):
        d["info"]["version"] = "1.1.0"
        d["paths"].pop("/metrics")
    recorded = CHANGELOG.replace("## [1.0.0]", "## [1.1.0] - 2027-05-01\n\n### Removed\n\n- `getMetrics`, an "
                                 "operator surface: on the admin port.\n\n## [1.0.0]")
    allowed, problems = judge(edit, recorded)
    assert problems == [] and allowed == [
        "getMetrics (GET /metrics): operation removed (an operator surface, CHANGELOG.md [1.1.0])"]
    _, problems = judge(edit, recorded.replace("an operator surface", "moved"))
    assert problems == ["getMetrics (GET /metrics): operation removed"]


def test_an_app_operation_is_no_operator_surface_whatever_the_changelog_says():
    def edit(d):
        d["info"]["version"] = "1.1.0"
        d["paths"]["/v1/orders/{id}"].pop("get")
    recorded = CHANGELOG.replace("## [1.0.0]", "## [1.1.0] - 2027-05-01\n\n- `getOrder`, an operator surface."
                                 "\n\n## [1.0.0]")
    _, problems = judge(edit, recorded)
    assert problems == ["getOrder (GET /v1/orders/{}): operation removed"]


def served_v1_until(day):
    return CHANGELOG.replace("## [1.0.0]", f"## [2.0.0] - 2026-01-01\n\n- `/v2`. `/v1` is served until {day}.\n\n## [1.0.0]")


def test_a_deprecated_operation_of_an_older_major_goes_once_its_served_date_has_passed():
    allowed, problems = judge(lambda d: d["paths"].pop("/v1/things"), served_v1_until("2027-05-31"))
    assert problems == [] and allowed == [
        "listThings (GET /v1/things): operation removed (deprecated; /v1 served until 2027-05-31)"]
    _, problems = judge(lambda d: d["paths"].pop("/v1/things"), served_v1_until("2027-06-30"))
    assert problems == ["listThings (GET /v1/things): operation removed"]


def test_an_operation_not_marked_deprecated_cannot_go_at_the_served_date():
    _, problems = judge(lambda d: d["paths"]["/v1/orders/{id}"].pop("get"), served_v1_until("2027-05-31"))
    assert problems == ["getOrder (GET /v1/orders/{}): operation removed"]


def test_the_release_must_be_in_the_changelog_and_the_version_must_not_go_back():
    def edit(d):
        d["info"]["version"] = "0.9.0"
    _, problems = judge(edit, "# Changelog\n")
    assert problems == ["CHANGELOG.md has no section [1.0.0], the released document's version",
                        "info.version 0.9.0 is below the released 1.0.0"]


def test_the_command_names_the_break_and_fails(tmp_path):
    released, current, changelog = tmp_path / "openapi-1.0.0.yaml", tmp_path / "openapi.yaml", tmp_path / "CHANGELOG.md"
    released.write_text(yaml.safe_dump(RELEASED))
    doc = copy.deepcopy(RELEASED)
    doc["paths"]["/v1/orders/{id}"]["get"]["responses"].pop("404")
    current.write_text(yaml.safe_dump(doc))
    changelog.write_text(CHANGELOG)
    command = [sys.executable, str(SCRIPT), "--released", str(released), "--current", str(current),
               "--changelog", str(changelog)]
    failed = subprocess.run(command, capture_output=True, text=True)
    assert failed.returncode == 1
    assert "getOrder (GET /v1/orders/{}): status 404: removed" in failed.stderr
    current.write_text(yaml.safe_dump(RELEASED))
    passed = subprocess.run(command, capture_output=True, text=True)
    assert passed.returncode == 0, passed.stderr
    assert "keeps every client of openapi-1.0.0.yaml working (4 operations compared)" in passed.stdout
