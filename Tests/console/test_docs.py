"""The API reference at /docs in a real browser: headless Chromium driven by selenium.

Run by deploy/scripts/console-test.sh (step `console` of `make test`), which starts the system
with up.sh; up.sh points the gateway's API_DOCS_DIR at Swagger UI (the PyPI package
swagger-ui-bundle-v2 that bootstrap.sh installs). The test opens /docs, waits for Swagger UI to
render the document, expands nothing, and checks that every operation of /openapi.yaml (parsed
with PyYAML) shows as one operation block, and that the browser logged no Content-Security-Policy
violation (nor any other error). A screenshot goes to CONSOLE_OUT/screenshots/docs.png.
"""
import os
import pathlib
import urllib.request

import pytest
import yaml
import chromium
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

BASE = os.environ.get("CONSOLE_BASE_URL")
OUT = pathlib.Path(os.environ.get("CONSOLE_OUT", ".data/console-test")) / "screenshots"
METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}

pytestmark = pytest.mark.skipif(not BASE, reason="run through deploy/scripts/console-test.sh, which starts the system")


@pytest.fixture(scope="module")
def browser():
    driver = chromium.start(chromium.headless_options({"browser": "ALL"}))
    yield driver
    driver.quit()


def document_operations():
    """(METHOD, path) of every operation of the document the gateway serves, and how many blocks
    Swagger UI shows for them (one per tag of each operation; one for an untagged one)."""
    with urllib.request.urlopen(BASE + "/openapi.yaml", timeout=10) as response:
        document = yaml.safe_load(response.read())
    operations = {
        (method.upper(), path): operation
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method in METHODS
    }
    return set(operations), sum(max(1, len(o.get("tags") or [])) for o in operations.values())


def test_reference_shows_every_operation(browser):
    expected, expected_blocks = document_operations()
    assert len(expected) > 80, f"only {len(expected)} operations in /openapi.yaml"

    browser.get(BASE + "/docs")
    assert "not installed" not in browser.page_source, (
        "/docs says Swagger UI is not installed: run deploy/scripts/bootstrap.sh (pip package swagger-ui-bundle-v2)")

    # Swagger UI fetches /openapi.yaml and renders one collapsed block per operation and tag.
    def rendered(driver):
        blocks = driver.find_elements(By.CSS_SELECTOR, ".opblock")
        return len(blocks) >= expected_blocks and blocks

    try:
        WebDriverWait(browser, 60, poll_frequency=0.5).until(rendered)
    except Exception:
        pass  # the comparison below names what is missing

    shown = set()
    for block in browser.find_elements(By.CSS_SELECTOR, ".opblock"):
        method = block.find_element(By.CSS_SELECTOR, ".opblock-summary-method").text.strip().upper()
        path = block.find_element(By.CSS_SELECTOR, ".opblock-summary-path").get_attribute("data-path")
        shown.add((method, path))
    blocks = len(browser.find_elements(By.CSS_SELECTOR, ".opblock"))

    OUT.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(OUT / "docs.png"))

    missing = sorted(expected - shown)
    unexpected = sorted(shown - expected)
    assert not missing, f"{len(missing)} operations not shown: " + ", ".join(f"{m} {p}" for m, p in missing)
    assert not unexpected, "shown but not in the document: " + ", ".join(f"{m} {p}" for m, p in unexpected)
    assert blocks == expected_blocks, f"{blocks} operation blocks for {len(expected)} operations ({expected_blocks} expected)"
    # Nothing was expanded: no block shows its body.
    assert not browser.find_elements(By.CSS_SELECTOR, ".opblock.is-open")

    # The page ran under its Content-Security-Policy without a violation (Chromium logs each one
    # as a SEVERE console message naming the directive), and without any other error.
    try:
        entries = browser.get_log("browser")
    except Exception:  # a driver without the log: nothing to check
        entries = []
    violations = [e["message"] for e in entries if "Content Security Policy" in e.get("message", "")]
    assert not violations, "CSP violations:\n" + "\n".join(violations)
    errors = [e["message"] for e in entries if e.get("level") == "SEVERE"]
    assert not errors, "browser errors:\n" + "\n".join(errors)
