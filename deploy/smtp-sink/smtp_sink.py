#!/usr/bin/env python3
"""A local SMTP sink for `make up` and the tests: stores every message it receives as a file.

    python3 deploy/smtp-sink/smtp_sink.py --port 2525 --dir .data/mail \
        [--tls-cert cert.pem --tls-key key.pem [--require-starttls]] [--auth user:password]

Each message becomes `<dir>/<sha256(Message-ID)[:32]>.eml` (or a time-based name without a
Message-ID); a second message with the same Message-ID is kept as `...-dup<N>.eml`, so a count of
the files tells deliveries and duplicates apart. Prints `smtp-sink ready on HOST:PORT` when it
accepts connections; stops on SIGTERM or SIGINT.
"""
import argparse
import email.parser
import hashlib
import os
import signal
import ssl
import sys
import threading
import time

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


class Sink:
    def __init__(self, directory):
        self.directory = directory
        self.lock = threading.Lock()
        os.makedirs(directory, exist_ok=True)

    async def handle_DATA(self, server, session, envelope):
        data = envelope.original_content or envelope.content
        if isinstance(data, str):
            data = data.encode("utf-8")
        headers = email.parser.BytesHeaderParser().parsebytes(data)
        message_id = (headers.get("Message-ID") or "").strip()
        base = hashlib.sha256(message_id.encode()).hexdigest()[:32] if message_id else "%d" % time.time_ns()
        with self.lock:
            path = os.path.join(self.directory, base + ".eml")
            n = 1
            while os.path.exists(path):
                path = os.path.join(self.directory, "%s-dup%d.eml" % (base, n))
                n += 1
            tmp = path + ".tmp"
            with open(tmp, "wb") as f:
                f.write(b"X-Envelope-From: " + envelope.mail_from.encode() + b"\r\n")
                f.write(b"X-Envelope-To: " + ",".join(envelope.rcpt_tos).encode() + b"\r\n")
                f.write(data)
            os.rename(tmp, path)
        return "250 OK stored"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=int(os.environ.get("SMTP_SINK_PORT", "2525")))
    parser.add_argument("--dir", default=os.environ.get("SMTP_SINK_DIR", ".data/mail"))
    parser.add_argument("--tls-cert")
    parser.add_argument("--tls-key")
    parser.add_argument("--require-starttls", action="store_true")
    parser.add_argument("--auth", help="user:password; AUTH is then required")
    parser.add_argument("--probe", action="store_true",
                        help="hold an SMTP session with the sink on 127.0.0.1:PORT and exit 0 if it answers")
    args = parser.parse_args()
    if args.probe:
        import smtplib
        try:
            smtplib.SMTP("127.0.0.1", args.port, timeout=2).quit()
        except (OSError, smtplib.SMTPException) as error:
            print(f"smtp-sink on port {args.port}: {error}", file=sys.stderr)
            sys.exit(1)
        sys.exit(0)
    # A parent may have blocked these (signal masks are inherited across exec); we must see them.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})

    options = {}
    if args.tls_cert:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(args.tls_cert, args.tls_key)
        options["tls_context"] = context
        options["require_starttls"] = args.require_starttls
    if args.auth:
        user, password = args.auth.split(":", 1)

        def authenticate(server, session, envelope, mechanism, auth_data):
            ok = isinstance(auth_data, LoginPassword) and auth_data.login == user.encode() \
                and auth_data.password == password.encode()
            return AuthResult(success=ok)

        options["authenticator"] = authenticate
        options["auth_required"] = True
        options["auth_require_tls"] = bool(args.tls_cert)

    controller = Controller(Sink(args.dir), hostname=args.host, port=args.port, **options)
    controller.start()
    print("smtp-sink ready on %s:%d, storing in %s" % (args.host, args.port, args.dir), flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()
    controller.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
