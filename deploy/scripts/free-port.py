#!/usr/bin/env python3
"""Prints a TCP port that nothing listens on, chosen at random below the kernel's ephemeral range
(ip_local_port_range): a port the kernel hands out itself (bind to 0) can be taken by any
outgoing connection between this choice and the server binding it. lib.sh's free_port."""
import random
import socket

try:
    low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
except (OSError, ValueError, IndexError):
    low = 32768
for _ in range(2000):
    port = random.randrange(10000, max(low, 11000))
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
    except OSError:
        continue
    finally:
        s.close()
    print(port)
    break
else:
    raise SystemExit("no free port below the ephemeral range")
