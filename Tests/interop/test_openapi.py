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
    # A null member of an `enum` list is meant: it is how a nullable enum admits null
    # (`type: [string, 'null'], enum: [a, b, null]`). Anywhere else a null is a slip.
    nulls = [
        "/".join(map(str, path))
        for path, value in walk(load())
        if value is None and not (len(path) >= 2 and path[-2] == "enum" and isinstance(path[-1], int))
    ]
    assert nulls == [], f"keys without a value (an unquoted comma or colon?): {nulls}"


def test_a_nullable_enum_is_a_nullable_type():
    """`null` in an enum needs 'null' among the types, and the reverse (else null is refused)."""
    wrong = []
    for path, value in walk(load()):
        if isinstance(value, dict) and isinstance(value.get("enum"), list):
            types = value.get("type")
            nullable_type = isinstance(types, list) and "null" in types
            if (None in value["enum"]) != nullable_type:
                wrong.append("/".join(map(str, path)))
    assert wrong == []


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


OPERATIONS_ENDPOINTS = {"/healthz", "/readyz", "/openapi.yaml"}


def operations(document):
    for route, item in document["paths"].items():
        for method, operation in item.items():
            if method in METHODS:
                yield route, method, operation


def test_every_operation_declares_every_status_it_can_answer():
    """A shared default error everywhere, 429 with Retry-After wherever the gateway rate-limits,
    401 wherever a token is required, 503 with Retry-After where admission control sheds load."""
    document = load()
    admission = {"register", "login", "requestPasswordReset", "confirmPasswordReset"}
    problems = []
    for route, method, operation in operations(document):
        responses = operation["responses"]
        label = f"{method.upper()} {route}"
        # A HEAD answer has no body (RFC 9110 §9.3.2): its errors are the bodiless kinds.
        error, rate_limited = (("ErrorNoBody", "RateLimitedNoBody") if method == "head" else ("Error", "RateLimited"))
        if responses.get("default", {}).get("$ref") != f"#/components/responses/{error}":
            problems.append(f"{label}: no shared default error")
        if route not in OPERATIONS_ENDPOINTS and responses.get("429", {}).get("$ref") != f"#/components/responses/{rate_limited}":
            problems.append(f"{label}: no 429 RateLimited")
        secured = any("bearerAuth" in requirement for requirement in operation.get("security", []))
        optional = {} in operation.get("security", [])
        if secured and not optional and "401" not in responses:
            problems.append(f"{label}: secured but no 401")
        if operation["operationId"] in admission and responses.get("503", {}).get("$ref") != "#/components/responses/Unavailable":
            problems.append(f"{label}: no 503 Unavailable")
    assert problems == []
    rate_limited = document["components"]["responses"]["RateLimited"]["headers"]["Retry-After"]["$ref"]
    assert document["components"]["headers"][rate_limited.rsplit("/", 1)[1]]["required"] is True


def test_every_response_declares_the_request_id():
    document = load()
    missing = []
    for route, method, operation in operations(document):
        for status, response in operation["responses"].items():
            if "$ref" in response:
                response = document["components"]["responses"][response["$ref"].rsplit("/", 1)[1]]
            if "X-Request-Id" not in response.get("headers", {}):
                missing.append(f"{method.upper()} {route} {status}")
    assert missing == []


def test_growing_enums_are_open():
    """Error codes, order states and notification kinds: `anyOf` [known values, any string], so
    a generated client decodes a value added later instead of failing."""
    schemas = load()["components"]["schemas"]

    def resolved(branch):
        return schemas[branch["$ref"].rsplit("/", 1)[1]] if "$ref" in branch else branch

    for schema in (schemas["ErrorBody"]["properties"]["code"], schemas["OrderState"], schemas["NotificationKind"]):
        known, unlisted = (resolved(branch) for branch in schema["anyOf"])
        assert known["type"] == "string" and known["enum"]
        assert unlisted["type"] == "string" and "enum" not in unlisted
