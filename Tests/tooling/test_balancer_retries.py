"""The balancer's retry rules (deploy/haproxy/*.cfg with repeatable.map), run by a real HAProxy in
front of two small HTTP servers: one closes every request's connection without answering, as a
gateway killed mid-request does, the other answers. A request the document marks repeatable
reaches the second; one it does not is answered 502 and was sent once only."""
import pathlib
import shutil
import socket
import subprocess
import sys
import time
from urllib import error, request

import pytest

from script_module import ROOT, load

REPEATABLE_MAP = load("deploy/scripts/repeatable-map.py")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# A gateway stand-in, a process of its own: it answers /healthz and records every other request
# in SEEN; with DIES it kills itself with SIGKILL on its first, without answering (a gateway
# killed mid-request), else it answers 200.
GATEWAY = """
import os, signal, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
dies, seen = sys.argv[1] == "dies", open(sys.argv[2], "a")
class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *arguments):
        pass
    def answer(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path != "/healthz":
            seen.write(f"{self.command} {self.path}\\n")
            seen.flush()
            if dies:
                os.kill(os.getpid(), signal.SIGKILL)
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")
    do_GET = do_POST = answer
server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_port, flush=True)
server.serve_forever()
"""


def gateway(dies, seen):
    """A stand-in gateway process and its port."""
    process = subprocess.Popen([sys.executable, "-c", GATEWAY, "dies" if dies else "lives", str(seen)],
                               stdout=subprocess.PIPE, text=True)
    return process, int(process.stdout.readline())


DIRECT = request.build_opener(request.ProxyHandler({}))


def status(port, method, path):
    """The balancer's answer's status, or None when it could not be reached."""
    call = request.Request(f"http://127.0.0.1:{port}{path}", data=b"{}" if method == "POST" else None, method=method)
    try:
        with DIRECT.open(call, timeout=10) as reply:
            return reply.status
    except error.HTTPError as refused:
        return refused.code
    except (error.URLError, ConnectionError):
        return None


def through_balancer(tmp_path, method, path, count=4):
    """`count` requests through the drill's HAProxy to a gateway that dies at its first request
    and one that lives: the answers' statuses, and what each gateway was sent."""
    dying_seen, living_seen = tmp_path / "dying.txt", tmp_path / "living.txt"
    (dying, dying_port), (living, living_port) = gateway(True, dying_seen), gateway(False, living_seen)
    port = free_port()
    config = (ROOT / "deploy/haproxy/upgrade-drill.cfg").read_text()
    for name, value in {"@HTTP_PORT@": port, "@ADMIN_PORT@": free_port(), "@PORT1@": dying_port,
                        "@PORT2@": living_port, "@PORT3@": free_port(), "@PORT4@": free_port(),
                        "@MAP@": ROOT / "deploy/haproxy/repeatable.map"}.items():
        config = config.replace(name, str(value))
    # Each request's log line on stderr (pytest shows it when a test fails).
    config = config.replace("global\n", "global\n    log stderr format raw local0 info\n", 1)
    config = config.replace("defaults\n", "defaults\n    log global\n    option httplog\n", 1)
    (tmp_path / "haproxy.cfg").write_text(config)
    haproxy = subprocess.Popen([HAPROXY, "-db", "-f", str(tmp_path / "haproxy.cfg")])
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and status(port, "GET", "/healthz") != 200:
            time.sleep(0.1)
        time.sleep(0.5)
        answers = [status(port, method, path) for _ in range(count)]
        seen = [path.read_text().splitlines() if path.exists() else [] for path in (dying_seen, living_seen)]
        return answers, seen[0], seen[1]
    finally:
        for process in (haproxy, dying, living):
            process.kill()
            process.wait(timeout=10)


HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"


def test_the_map_is_current_and_matches_paths_with_parameters():
    document = REPEATABLE_MAP.yaml.safe_load(REPEATABLE_MAP.DOCUMENT.read_text())
    text = REPEATABLE_MAP.generate(document)
    assert (ROOT / "deploy/haproxy/repeatable.map").read_text() == text, "run deploy/scripts/repeatable-map.py"
    assert REPEATABLE_MAP.pattern("delete", "/v1/orders/{id}/share") == "^DELETE/v1/orders/[^/]+/share$"
    assert "^POST/v1/auth/register$ 1" not in text.splitlines()


@pytest.mark.skipif(not pathlib.Path(HAPROXY).exists(), reason="haproxy is not installed")
@pytest.mark.parametrize("method,path", [("POST", "/v1/me/drinks"), ("GET", "/v1/me"), ("POST", "/v1/campus/routes")])
def test_a_repeatable_request_lost_with_a_gateway_is_answered_by_another(tmp_path, method, path):
    answers, dying_seen, living_seen = through_balancer(tmp_path, method, path)
    assert dying_seen == [f"{method} {path}"], "the dying gateway took one of the requests"
    assert answers == [200] * 4 and len(living_seen) == 4


@pytest.mark.skipif(not pathlib.Path(HAPROXY).exists(), reason="haproxy is not installed")
@pytest.mark.parametrize("method,path", [("POST", "/v1/auth/register"), ("POST", "/v1/orders/x/cancel")])
def test_a_request_that_must_not_be_repeated_is_lost_with_its_gateway(tmp_path, method, path):
    answers, dying_seen, living_seen = through_balancer(tmp_path, method, path)
    assert dying_seen == [f"{method} {path}"], "the dying gateway took one of the requests"
    assert sorted(answers) == [200, 200, 200, 502] and len(living_seen) == 3
