"""Prints "CASES FAILURES" of one `st run` (deploy/scripts/api-fuzz.sh): the cases generated, from
the log's summary line, and the failures, from the JUnit report (one test case per operation, each
failure a <failure> or <error>).

    python3 Tests/api-fuzz/counts.py RUN.log RUN.xml
"""
import re
import sys
import xml.etree.ElementTree as ET

log = open(sys.argv[1], encoding="utf-8", errors="replace").read()
generated = re.findall(r"(\d+) generated", log)
cases = int(generated[-1]) if generated else 0
failures = 0
try:
    for case in ET.parse(sys.argv[2]).getroot().iter("testcase"):
        failures += len(case.findall("failure")) + len(case.findall("error"))
except Exception:
    pass
print(cases, failures)
