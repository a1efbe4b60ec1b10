"""api-clients.py (make test's api-clients step) fails on what it is meant to catch: a warning that
is not a listed notice, an operation without its method, a list entry that names nothing.

Each case lays out, in a temporary folder, what the generators would have written for a small
document: the logs and the files in which api-clients.py looks for the methods.
"""
import pathlib

import pytest
import yaml

import script_module

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = ROOT / "services/gateway/GatewayService/openapi.yaml"
LISTS = ROOT / "Tests/api-clients"
BETA = ("OpenAPI 3.1 support is still in beta. To report an issue related to 3.1 spec, please kindly open an "
        "issue in the Github repo: https://github.com/openAPITools/openapi-generator.")


def load():
    return script_module.load("deploy/scripts/api-clients.py")


IDS = ["getThing", "putThing", "streamThings"]


def write_client(out, generator, ids):
    """The files in which `generator`'s client has a method for each of `ids`."""
    folder = out / generator
    if generator == "python":
        module = {"getThing": "get_thing", "putThing": "put_thing", "streamThings": "stream_things"}
        (folder / "backplane_client/api/things").mkdir(parents=True)
        (folder / "backplane_client/api/things/__init__.py").write_text("")
        for op_id in ids:
            (folder / f"backplane_client/api/things/{module[op_id]}.py").write_text("def sync(): ...\n")
        return
    path, line = {
        "typescript-fetch": ("src/apis/ThingsApi.ts", "    async {}Raw(requestParameters) {{}}\n    async {}() {{}}\n"),
        "kotlin": ("src/main/kotlin/org/x/apis/ThingsApi.kt", "    fun {}() {{}}\n    fun {}WithHttpInfo() {{}}\n"),
        "swift6": ("Sources/X/APIs/ThingsAPI.swift",
                   "    open class func {}() {{}}\n    open class func {}WithRequestBuilder() {{}}\n"),
    }[generator]
    (folder / path).parent.mkdir(parents=True)
    (folder / path).write_text("".join(line.format(op_id, op_id) for op_id in ids))


@pytest.fixture
def world(tmp_path):
    """A document of three operations, four clean clients of it, and empty lists."""
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1.0.0"}, "paths": {
        "/things": {"get": {"operationId": "getThing"}, "put": {"operationId": "putThing"}},
        "/things/stream": {"get": {"operationId": "streamThings"}}}}
    (tmp_path / "doc.yaml").write_text(yaml.safe_dump(doc))
    out = tmp_path / "out"
    for generator in ["python", "typescript-fetch", "kotlin", "swift6"]:
        write_client(out, generator, IDS)
        text = "Generating x\n" if generator == "python" else (
            "[main] INFO  o.o.codegen.DefaultGenerator - Generating with dryRun=false\n"
            f"[main] WARN  o.o.codegen.DefaultCodegen - {BETA}\n")
        (out / f"{generator}.log").write_text(text)
    (tmp_path / "unexpressed.txt").write_text("# nothing\n")
    (tmp_path / "notices.txt").write_text(f"typescript-fetch, kotlin, swift6 | {BETA} | about itself\n")
    return tmp_path


def run(world):
    return load().check(world / "doc.yaml", world / "out", world / "unexpressed.txt", world / "notices.txt")


def test_clean_clients_pass_with_their_counts(world):
    summary, problems = run(world)
    assert problems == []
    assert summary == [f"{g}: 3 of 3 operations have one method (0 left out as not expressible)"
                       for g in ["python", "typescript-fetch", "kotlin", "swift6"]]


def test_a_missing_method_is_named_by_its_operation_id(world):
    (world / "out/python/backplane_client/api/things/put_thing.py").unlink()
    kotlin = world / "out/kotlin/src/main/kotlin/org/x/apis/ThingsApi.kt"
    kotlin.write_text(kotlin.read_text().replace("putThing", "other"))
    summary, problems = run(world)
    assert "python: no method for 1 operations: putThing" in problems
    assert "kotlin: no method for 1 operations: putThing" in problems
    assert "kotlin: methods of no operation of the document: other" in problems
    assert "kotlin: 2 of 3 operations have one method (0 left out as not expressible)" in summary


def test_an_operation_listed_as_not_expressible_is_not_counted(world):
    (world / "unexpressed.txt").write_text("streamThings | swift6 | an event stream\n")
    (world / "out/swift6/Sources/X/APIs/ThingsAPI.swift").write_text(
        "    open class func getThingWithRequestBuilder() {}\n    open class func putThingWithRequestBuilder() {}\n")
    summary, problems = run(world)
    assert problems == []
    assert "swift6: 2 of 3 operations have one method (1 left out as not expressible)" in summary


def test_a_listed_operation_the_document_lacks_is_named(world):
    (world / "unexpressed.txt").write_text("gone | * | no longer there\n")
    _, problems = run(world)
    assert "unexpressed.txt: gone is not an operation of the document" in problems


def test_a_warning_fails_unless_it_is_a_listed_notice(world):
    with (world / "out/kotlin.log").open("a") as log:
        log.write("[main] WARN  o.o.c.l.KotlinClientCodegen - Error (reserved word) cannot be used as model name.\n")
    (world / "out/python.log").write_text(
        "Generating x\nWarning(s) encountered while generating.\n\nWARNING parsing GET /x within x.\n\n"
        "Unsupported content type image/png\n\n{\n  \"description\": \"x\"\n}\n")
    _, problems = run(world)
    assert problems == [
        "python: Warning(s) encountered while generating.", "python: WARNING parsing GET /x within x.",
        "python: Unsupported content type image/png",
        "kotlin: [main] WARN  o.o.c.l.KotlinClientCodegen - Error (reserved word) cannot be used as model name."]


def test_a_notice_counts_only_for_the_generators_it_names(world):
    (world / "notices.txt").write_text(f"kotlin | {BETA} | about itself\n")
    _, problems = run(world)
    assert sorted(p.split(":")[0] for p in problems) == ["swift6", "typescript-fetch"]


def test_the_shipped_lists_are_well_formed_and_name_operations_of_the_document():
    module = load()
    ids = set(module.operations(yaml.safe_load(DOC.read_text())))
    for name in ["unexpressed.txt", "notices.txt"]:
        for row in module.listed(LISTS / name):
            assert len(row) == 3 and all(row), f"{name}: {row}"
    assert all(row[0] in ids for row in module.listed(LISTS / "unexpressed.txt"))
    assert len({module.key(i) for i in ids}) == len(ids), "two operationIds differ only in case or separators"
