"""The gateway's OpenAPI document is well-formed YAML that says what its authors meant.

YAML's flow mappings are easy to get wrong in a spec: `{description: dBm, e.g. -55.}` silently
becomes two keys, one of them `e.g. -55.` with a null value. These checks load the document the
way a client generator would and look for that, duplicate keys and dangling references.
"""
import pathlib

import yaml

DOCUMENT = pathlib.Path(__file__).resolve().parents[2] / "services/gateway/GatewayService/openapi.yaml"
METHODS = {"get", "put", "post", "delete", "patch", "head", "options"}


class StrictLoader(yaml.SafeLoader):
    """Refuses a mapping that names the same key twice (PyYAML keeps the last one silently)."""


def _mapping(loader, node, deep=False):
    keys = [loader.construct_object(key, deep=deep) for key, _ in node.value]
    repeated = sorted({str(key) for key in keys if keys.count(key) > 1})
    if repeated:
        raise yaml.constructor.ConstructorError(None, None, f"repeated keys {repeated}", node.start_mark)
    return yaml.SafeLoader.construct_mapping(loader, node, deep)


StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def load():
    return yaml.load(DOCUMENT.read_text(encoding="utf-8"), Loader=StrictLoader)


def walk(node, path=()):
    yield path, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from walk(value, path + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from walk(value, path + (index,))


def test_no_null_values():
    nulls = ["/".join(map(str, path)) for path, value in walk(load()) if value is None]
    assert nulls == [], f"keys without a value (an unquoted comma or colon?): {nulls}"


def test_every_reference_resolves():
    document = load()
    missing = []
    for path, value in walk(document):
        if path and path[-1] == "$ref":
            target = document
            for part in value.removeprefix("#/").split("/"):
                target = target.get(part) if isinstance(target, dict) else None
            if target is None:
                missing.append(f"{'/'.join(map(str, path))} -> {value}")
    assert missing == []


def test_operations_are_named_once_and_answer_errors():
    document = load()
    ids = []
    for route, item in document["paths"].items():
        assert route.startswith("/"), route
        for method, operation in item.items():
            if method not in METHODS:
                continue
            assert operation.get("operationId"), f"{method.upper()} {route} has no operationId"
            assert operation.get("responses"), f"{method.upper()} {route} has no responses"
            ids.append(operation["operationId"])
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})
