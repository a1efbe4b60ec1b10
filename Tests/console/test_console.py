"""The operator console in a real browser: headless Chromium driven by selenium.

Run by deploy/scripts/console-test.sh (step `console` of `make test`), which starts the system
and sets CONSOLE_BASE_URL, CONSOLE_ADMIN_USERNAME/PASSWORD, CONSOLE_OUT and DATABASE_URL. The
test seeds what it needs straight into the services' tables (a print job ready to print, a dead
letter), signs in as the configured admin, marks the job printed and retries the dead letter
through the pages, checks the database saw both, and signs in as a printer, who sees only the
printer's pages. Every page is photographed into CONSOLE_OUT/screenshots and each photograph
is checked to show something (not one flat colour).
"""
import datetime
import json
import os
import pathlib
import struct
import subprocess
import urllib.error
import urllib.request
import uuid
import zlib

import pytest
import chromium
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

BASE = os.environ.get("CONSOLE_BASE_URL")
ADMIN = os.environ.get("CONSOLE_ADMIN_USERNAME")
ADMIN_PASSWORD = os.environ.get("CONSOLE_ADMIN_PASSWORD")
OUT = pathlib.Path(os.environ.get("CONSOLE_OUT", ".data/console-test")) / "screenshots"
DATABASE_URL = os.environ.get("DATABASE_URL")
DOWNLOADS = pathlib.Path(os.environ.get("CONSOLE_OUT", ".data/console-test")).resolve() / "downloads"

pytestmark = pytest.mark.skipif(
    not (BASE and ADMIN and ADMIN_PASSWORD and DATABASE_URL),
    reason="run through deploy/scripts/console-test.sh, which starts the system",
)


# ---------------------------------------------------------------------------- helpers


def psql(sql):
    """One statement through psql; its first column of the first row, or ''."""
    done = subprocess.run(
        ["psql", DATABASE_URL, "-qtAX", "-v", "ON_ERROR_STOP=1", "-c", sql],
        check=True, capture_output=True, text=True,
    )
    return done.stdout.strip().splitlines()[0] if done.stdout.strip() else ""


def http(method, path, body=None, token=None):
    request = urllib.request.Request(BASE + path, method=method, data=None if body is None else json.dumps(body).encode())
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(request, timeout=10) as response:
        text = response.read()
        return json.loads(text) if text else None


def png_shows_something(data):
    """True when a PNG is not one flat colour: the decompressed scanlines (whatever PNG filter
    each row uses) of a single-colour image are a handful of byte values, nearly all one value;
    a page with text and tables has dozens of values and no single one close to all."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    position, idat, width, height = 8, b"", 0, 0
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        chunk = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            width, height = struct.unpack(">II", chunk[:8])
        elif kind == b"IDAT":
            idat += chunk
        position += 12 + length
    raw = zlib.decompress(idat)
    counts = [0] * 256
    for byte in raw:
        counts[byte] += 1
    distinct = sum(1 for c in counts if c)
    return width > 100 and height > 100 and distinct >= 32 and max(counts) < 0.995 * len(raw)


@pytest.fixture(scope="module")
def browser():
    options = chromium.headless_options({"browser": "ALL", "performance": "ALL"})
    DOWNLOADS.mkdir(parents=True, exist_ok=True)
    options.add_experimental_option(
        "prefs", {"download.default_directory": str(DOWNLOADS), "download.prompt_for_download": False})
    driver = chromium.start(options)
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(DOWNLOADS)})
    yield driver
    driver.quit()


def wait(driver, condition, seconds=15):
    return WebDriverWait(driver, seconds).until(condition)


def find_row(driver, selector, table):
    """The row `selector` of table `table`; when it does not come, fails saying what the table
    and the status line show instead."""
    try:
        return wait(driver, EC.presence_of_element_located((By.CSS_SELECTOR, selector)))
    except Exception:
        shown = driver.find_element(By.ID, table).text
        status = driver.find_element(By.ID, "status").text
        raise AssertionError(f"no {selector} in #{table}: {shown!r}; status: {status!r}") from None


def settled(read):
    """`read()`, or False while what it reads is missing or being drawn again."""
    try:
        return read()
    except (StaleElementReferenceException, NoSuchElementException, IndexError, ValueError):
        return False


def cell_text(driver, selector):
    """The text of `selector`, or False while it is missing, empty or being drawn again."""
    try:
        return driver.find_element(By.CSS_SELECTOR, selector).text or False
    except (StaleElementReferenceException, NoSuchElementException):
        return False


def status_says(driver, words):
    return wait(driver, lambda d: words in d.find_element(By.ID, "status").text and d.find_element(By.ID, "status"))


def snap(driver, name):
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / (name + ".png")
    data = driver.get_screenshot_as_png()
    path.write_bytes(data)
    assert png_shows_something(data), f"the screenshot of {name} ({path}) is blank"
    return path


def sign_in(driver, username, password):
    driver.get(BASE + "/console")
    wait(driver, EC.visibility_of_element_located((By.ID, "signin-form")))
    driver.find_element(By.ID, "username").send_keys(username)
    driver.find_element(By.ID, "password").send_keys(password)
    driver.find_element(By.ID, "signin-button").click()
    wait(driver, EC.visibility_of_element_located((By.ID, "nav")))


def responses(driver, path):
    """The responses (status, MIME type) the page received for URLs ending in `path`, from
    Chromium's network log since the last call."""
    found = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.responseReceived":
            response = message["params"]["response"]
            if response["url"].split("?")[0].endswith(path):
                found.append((response["status"], response.get("mimeType", "")))
    return found


def nav_titles(driver):
    return [b.text for b in driver.find_elements(By.CSS_SELECTOR, "#nav button")]


def open_page(driver, page):
    driver.find_element(By.CSS_SELECTOR, f'#nav button[data-page="{page}"]').click()
    wait(driver, EC.visibility_of_element_located((By.CSS_SELECTOR, f'section[data-page="{page}"]')))
    # Each page loads its tables on opening: wait for the first table's body to fill, or for
    # the status line to report an error (which fails the test with the API's answer).
    def settled(d):
        status = d.find_element(By.ID, "status")
        if "error" in (status.get_attribute("class") or ""):
            return True
        return all(
            len(body.find_elements(By.TAG_NAME, "tr")) > 0
            for body in d.find_elements(By.CSS_SELECTOR, f'section[data-page="{page}"] table:not([hidden]) tbody')[:1]
        )
    wait(driver, settled)
    status = driver.find_element(By.ID, "status")
    assert "error" not in (status.get_attribute("class") or ""), f"{page}: {status.text}"


# ---------------------------------------------------------------------------- the test


def test_admin_marks_a_job_printed_and_retries_a_dead_letter_and_a_printer_sees_only_print_pages(browser):
    job = str(uuid.uuid4())
    recipient = {"name": "Ann Example", "address": {"line1": "1 Main Street", "city": "Lund", "country": "SE"}}
    postcard = json.dumps({"size": "A6", "greeting": "Hello", "recipients": [recipient, recipient]})
    psql(
        "INSERT INTO printing.print_jobs (id, order_id, user_id, status, cards, postcard, created_at, updated_at) "
        f"VALUES ('{job}', 'console-{job}', '{uuid.uuid4()}', 'ready', 2, '{postcard}', now(), now())"
    )
    letter = str(uuid.uuid4())
    # A kind no notify worker claims, so that once retried it stays queued for the check.
    psql(
        "INSERT INTO notify.jobs (id, kind, payload, state, attempts, max_attempts, run_at, last_error, dead_reason, "
        "created_at, updated_at) VALUES "
        f"('{letter}', 'console_check', '{{\"note\": \"seeded\", \"pushToken\": \"secret-value\"}}', 'dead', 5, 5, "
        "now(), 'seeded by the console test', 'seeded by the console test', now(), now())"
    )

    # The sign-in page, with nothing inline that the Content-Security-Policy would refuse.
    browser.get(BASE + "/console")
    wait(browser, EC.visibility_of_element_located((By.ID, "signin-form")))
    snap(browser, "00-sign-in")

    sign_in(browser, ADMIN, ADMIN_PASSWORD)
    assert "token" not in browser.current_url.lower() and browser.current_url.endswith("/console")
    assert browser.execute_script("return window.localStorage.length + window.sessionStorage.length") == 0
    assert browser.execute_script("return document.cookie") == ""
    titles = nav_titles(browser)
    assert titles == ["Print jobs", "Postage", "Dead letters", "Queues", "Users and roles", "Campus", "Vouchers",
                      "Highlighted bills", "Stated positions"], titles

    # A second ready job for the batch PDF: the batch is rendered again from the order's
    # postcard, so a stored file name is all it needs besides.
    batch_job = str(uuid.uuid4())
    psql(
        "INSERT INTO printing.print_jobs (id, order_id, user_id, status, cards, postcard, pdf_file, created_at, "
        f"updated_at) VALUES ('{batch_job}', 'console-{batch_job}', '{uuid.uuid4()}', 'ready', 2, '{postcard}', "
        "'seeded.pdf', now(), now())"
    )
    today = datetime.datetime.now(datetime.timezone.utc).date().isoformat()

    # Print jobs: the seeded ready job is listed; mark it printed.
    open_page(browser, "print-jobs")
    assert "A6" in find_row(browser, f'tr[data-job="{job}"]', "print-table").text
    # Counts per day come from the server: today's row has the seeded ready jobs.
    counted = find_row(browser, f'tr[data-day="{today}"]', "print-days").find_elements(By.TAG_NAME, "td")
    assert int(counted[2].text) >= 2 and int(counted[6].text) >= 2, [c.text for c in counted]
    # The batch PDF of a ticked ready job: a download of application/pdf, answered 200.
    for old in DOWNLOADS.glob("*.pdf"):
        old.unlink()
    responses(browser, "/v1/print-jobs/batch.pdf")
    browser.find_element(By.CSS_SELECTOR, f'input[data-job="{batch_job}"]').click()
    browser.find_element(By.ID, "print-batch").click()
    status_says(browser, "1 jobs in one PDF")
    assert responses(browser, "/v1/print-jobs/batch.pdf") == [(200, "application/pdf")]
    downloaded = wait(browser, lambda d: (DOWNLOADS / "print-batch.pdf").exists() and DOWNLOADS / "print-batch.pdf", 30)
    wait(browser, lambda d: not list(DOWNLOADS.glob("*.crdownload")))
    assert downloaded.read_bytes()[:5] == b"%PDF-", "the download is a PDF"
    # The size filter: an A4 queue leaves the A6 job out, an A6 one has it.
    Select(browser.find_element(By.ID, "print-size")).select_by_visible_text("A4")
    browser.find_element(By.CSS_SELECTOR, "#print-filter button[type=submit]").click()
    wait(browser, lambda d: not d.find_elements(By.CSS_SELECTOR, f'tr[data-job="{job}"]'))
    Select(browser.find_element(By.ID, "print-size")).select_by_visible_text("A6")
    browser.find_element(By.CSS_SELECTOR, "#print-filter button[type=submit]").click()
    find_row(browser, f'tr[data-job="{job}"]', "print-table")
    snap(browser, "01-print-jobs")
    browser.find_element(By.CSS_SELECTOR, f'tr[data-job="{job}"] button[data-action="printed"]').click()
    status_says(browser, f"Job {job} marked printed")
    assert psql(f"SELECT status FROM printing.print_jobs WHERE id = '{job}'") == "printed"
    assert not browser.find_elements(By.CSS_SELECTOR, f'tr[data-job="{job}"]'), "a printed job left the ready list"
    browser.find_element(By.CSS_SELECTOR, "#print-days-form button[type=submit]").click()
    wait(browser, lambda d: settled(
        lambda: int(d.find_element(By.CSS_SELECTOR, f'tr[data-day="{today}"]').find_elements(By.TAG_NAME, "td")[3].text) >= 1))

    # Dead letters: inspect (secrets redacted), then retry.
    open_page(browser, "dead-letters")
    row = find_row(browser, f'tr[data-dead-letter="{letter}"]', "dead-table")
    row.find_element(By.CSS_SELECTOR, 'button[data-action="inspect"]').click()
    detail = wait(browser, EC.visibility_of_element_located((By.ID, "dead-detail"))).text
    assert "seeded" in detail and "secret-value" not in detail and "[redacted]" in detail
    snap(browser, "02-dead-letters")
    row.find_element(By.CSS_SELECTOR, 'button[data-action="retry"]').click()
    status_says(browser, f"Dead letter {letter} (console_check) queued again")
    assert psql(f"SELECT state FROM notify.jobs WHERE id = '{letter}'") == "queued"

    # Users and roles: the server's list, filtered by a prefix of the username and by role.
    open_page(browser, "users")
    browser.find_element(By.ID, "users-q").send_keys(ADMIN[:9].upper())
    Select(browser.find_element(By.ID, "users-role")).select_by_visible_text("admin")
    browser.find_element(By.CSS_SELECTOR, "#users-search button[type=submit]").click()
    # The table is drawn again when the filtered page comes: read the cell until it holds.
    find_row(browser, f'tr[data-user="{ADMIN}"]', "users-table")
    roles = wait(browser, lambda d: cell_text(d, f'#users-table tr[data-user="{ADMIN}"] td.roles'))
    assert "admin" in roles

    # Campus goals, a form end to end: a goal for the week after next, through the week picker;
    # listed in that week, not in the one before, and stored with that week's Monday.
    open_page(browser, "campus")
    monday = datetime.date.fromisoformat(today) - datetime.timedelta(days=datetime.date.fromisoformat(today).weekday())
    later = monday + datetime.timedelta(days=14)
    browser.execute_script("arguments[0].value = arguments[1]", browser.find_element(By.ID, "goal-week"), later.isoformat())
    title = f"Console goal {uuid.uuid4().hex[:8]}"
    form = browser.find_element(By.ID, "goal-form")
    form.find_element(By.NAME, "title").send_keys(title)
    Select(form.find_element(By.NAME, "metric")).select_by_visible_text("steps")
    form.find_element(By.NAME, "target").send_keys("12000")
    form.find_element(By.NAME, "reward").send_keys("a coffee")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    status_says(browser, "Goal saved")
    find_row(browser, f'tr[data-goal="{title}"]', "goal-table")
    assert later.isoformat() in wait(browser, lambda d: cell_text(d, f'#goal-table tr[data-goal="{title}"]'))
    assert psql(f"SELECT week_start FROM routing.goals WHERE title = '{title}'") == later.isoformat()
    browser.find_element(By.ID, "goal-week-previous").click()
    wait(browser, lambda d: not d.find_elements(By.CSS_SELECTOR, f'tr[data-goal="{title}"]'))
    browser.find_element(By.ID, "goal-week-next").click()
    find_row(browser, f'tr[data-goal="{title}"]', "goal-table")

    for number, page in enumerate(["queues", "postage", "users", "campus", "vouchers", "civic"], start=3):
        if page in ("users", "vouchers"):
            browser.find_element(By.CSS_SELECTOR, '#nav button[data-page="%s"]' % page).click()
            wait(browser, EC.visibility_of_element_located((By.CSS_SELECTOR, f'section[data-page="{page}"]')))
        else:
            open_page(browser, page)
        snap(browser, f"{number:02d}-{page}")
    # The page kept no trace of the session: storage empty, and no CSP violation was logged.
    assert browser.execute_script("return window.localStorage.length + window.sessionStorage.length") == 0
    refused = [entry["message"] for entry in browser.get_log("browser") if "Content Security Policy" in entry["message"]]
    assert refused == [], refused

    # Sign out; a printer (made so by the admin through the API) sees only the printer's pages.
    browser.find_element(By.ID, "sign-out").click()
    wait(browser, EC.visibility_of_element_located((By.ID, "signin-form")))
    printer = f"printer-{uuid.uuid4().hex[:10]}@example.org"
    password = "Printer-pass-1"
    created = http("POST", "/v1/auth/register", {"username": printer, "password": password})
    root = http("POST", "/v1/auth/login", {"username": ADMIN, "password": ADMIN_PASSWORD})["accessToken"]
    http("POST", f"/v1/admin/users/{created['userId']}/roles", {"grant": ["printer"]}, token=root)
    sign_in(browser, printer, password)
    assert nav_titles(browser) == ["Print jobs", "Postage"]
    open_page(browser, "print-jobs")
    snap(browser, "09-printer-view")


APPS = os.environ.get("CONSOLE_APPS_URL")


@pytest.mark.skipif(not APPS, reason="console-test.sh sets CONSOLE_APPS_URL, the apps' port")
def test_the_apps_port_serves_neither_the_console_nor_metrics():
    """The console and the metrics are operator surfaces: on the apps' port they are a 404, however
    the path is spelt, while the same gateway's operator listener serves the console."""
    for path in ["/console", "/console/", "/console/console.js", "/CONSOLE", "/metrics", "/metrics/", "/Metrics"]:
        request = urllib.request.Request(APPS + path, method="GET")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                pytest.fail(f"{path} answered {response.status} on the apps' port")
        except urllib.error.HTTPError as error:
            assert error.code == 404, f"{path}: {error.code}"
    with urllib.request.urlopen(BASE + "/console", timeout=10) as response:
        assert response.status == 200 and b"<html" in response.read().lower()
