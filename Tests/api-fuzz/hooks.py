"""schemathesis hooks for deploy/scripts/api-fuzz.sh (loaded through SCHEMATHESIS_HOOKS).

A tus PATCH body is `application/offset+octet-stream` (tus 1.0.0), which schemathesis has no
serializer for: it is raw bytes, sent as they are.

A list's `cursor` is opaque: it is only valid as the API gave it out (the `nextCursor` of the
page before, for the same filters), and any other string is rightly a 400. The document can only
say it is a string, so a schema-valid case with a made-up cursor would be a refusal the
positive-data check counts against the operation. Positive cases are therefore sent without
one: the first page, which tests everything else the operation takes. Negative cases keep it, a
cursor the API did not give out must still be refused. Paging itself is tested where a cursor
can be real (the services' own tests, the system tests).

A query is sent percent-encoded as RFC 3986 has it, a space as `%20`, as the generated clients
send it. schemathesis's HTTP client (requests) writes a space as `+`, the HTML form encoding,
while the API reads a query as RFC 3986 does, `+` a plus sign (`q=+46...` is a phone number):
a schema-valid value with a space would reach the API as another value.
"""

from urllib.parse import quote, urlencode

import requests.models
import schemathesis
from schemathesis import GenerationMode


@schemathesis.serializer("application/offset+octet-stream")
def offset_octet_stream(ctx, value):
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    return str(value).encode("utf-8")


@schemathesis.hook
def map_case(ctx, case):
    meta = case.meta
    if meta is not None and meta.generation.mode == GenerationMode.POSITIVE and case.query:
        case.query.pop("cursor", None)
    return case


_prepare_url = requests.models.PreparedRequest.prepare_url


def _prepare_url_rfc3986(self, url, params):
    # The parameters as requests reads them (a list is one pair per item, None is left out).
    if isinstance(params, dict):
        pairs = []
        for key, values in params.items():
            if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
                values = [values]
            pairs.extend((key, value) for value in values if value is not None)
        params = urlencode(pairs, quote_via=quote)
    return _prepare_url(self, url, params)


requests.models.PreparedRequest.prepare_url = _prepare_url_rfc3986
