"""schemathesis hooks for deploy/scripts/api-fuzz.sh (loaded through SCHEMATHESIS_HOOKS).

A tus PATCH body is `application/offset+octet-stream` (tus 1.0.0), which schemathesis has no
serializer for: it is raw bytes, sent as they are.
"""

import schemathesis


@schemathesis.serializer("application/offset+octet-stream")
def offset_octet_stream(ctx, value):
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    return str(value).encode("utf-8")
