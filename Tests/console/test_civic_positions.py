"""The console's Stated positions page in a real browser: an editor (the configured admin) lists
the San Luis Obispo City Council's sample members (imported at start from CIVIC_LOCAL_FILES),
opens a member's positions, enters a stated position with its source and the day it was
checked, sees it in the table and in the public person endpoint, and removes it.

Run by deploy/scripts/console-test.sh with the rest of this folder (it sets CONSOLE_BASE_URL,
CONSOLE_ADMIN_USERNAME/PASSWORD and CONSOLE_OUT).
"""
import datetime
import json
import os
import pathlib
import urllib.parse
import urllib.request

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
COUNCIL = "ocd-jurisdiction/country:us/state:ca/place:san_luis_obispo/government"
SAMPLE = pathlib.Path(__file__).resolve().parents[2] / "deploy/civic/san_luis_obispo_city_council.sample.json"

pytestmark = pytest.mark.skipif(
    not (BASE and ADMIN and ADMIN_PASSWORD),
    reason="run through deploy/scripts/console-test.sh, which starts the system",
)


def get(path):
    with urllib.request.urlopen(urllib.request.Request(BASE + path), timeout=10) as response:
        return json.loads(response.read())


@pytest.fixture(scope="module")
def browser():
    driver = chromium.start(chromium.headless_options({"browser": "ALL"}))
    yield driver
    driver.quit()


def wait(driver, condition, seconds=15):
    return WebDriverWait(driver, seconds).until(condition)


def table_has(driver, table, *words):
    """The table's text once it holds every one of `words`, else False (while it is drawn again)."""
    try:
        text = driver.find_element(By.ID, table).text
    except (StaleElementReferenceException, NoSuchElementException):
        return False
    return text if all(word in text for word in words) else False


def click_in_row(driver, table, words, button):
    """Clicks `button` in the first row of `table` that shows `words`."""
    def found(d):
        try:
            for row in d.find_elements(By.CSS_SELECTOR, f"#{table} tbody tr"):
                if words in row.text:
                    return row.find_element(By.XPATH, f".//button[text()='{button}']")
        except (StaleElementReferenceException, NoSuchElementException):
            return False
        return False
    wait(driver, found).click()


def test_an_editor_enters_and_removes_a_stated_position(browser):
    member = next(m for m in json.loads(SAMPLE.read_text())["members"] if m["terms"][-1]["office"] == "Council Member")
    browser.get(BASE + "/console")
    wait(browser, EC.visibility_of_element_located((By.ID, "signin-form")))
    browser.find_element(By.ID, "username").send_keys(ADMIN)
    browser.find_element(By.ID, "password").send_keys(ADMIN_PASSWORD)
    browser.find_element(By.ID, "signin-button").click()
    wait(browser, EC.element_to_be_clickable((By.CSS_SELECTOR, "#nav button[data-page='civic-positions']"))).click()
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f"#position-jurisdiction option[value='{COUNCIL}']"))
    Select(browser.find_element(By.ID, "position-jurisdiction")).select_by_value(COUNCIL)
    browser.find_element(By.CSS_SELECTOR, "#position-people-form button[type='submit']").click()
    wait(browser, lambda d: table_has(d, "position-people", member["name"], "Mayor", "at large"))
    click_in_row(browser, "position-people", member["name"], "Positions")
    wait(browser, lambda d: member["name"] in d.find_element(By.ID, "position-person-name").text)
    wait(browser, lambda d: table_has(d, "position-table", "vote"))

    # Choose the climate item and state a position on it, checked today.
    browser.find_element(By.ID, "position-bill-q").send_keys("climate")
    browser.find_element(By.CSS_SELECTOR, "#position-bill-search button[type='submit']").click()
    click_in_row(browser, "position-bills", "climate action plan", "Choose")
    bill = wait(browser, lambda d: d.find_element(By.ID, "position-bill").get_attribute("value"))
    today = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    Select(browser.find_element(By.ID, "position-value")).select_by_visible_text("oppose")
    for field, value in [("position-stated", today), ("position-checked", today)]:
        browser.execute_script("arguments[0].value = arguments[1]", browser.find_element(By.ID, field), value)
    browser.find_element(By.ID, "position-source").send_keys("https://example.org/console-statement")
    browser.find_element(By.ID, "position-save").click()
    wait(browser, lambda d: "Position saved." in d.find_element(By.ID, "status").text)
    wait(browser, lambda d: table_has(d, "position-table", "stated", "oppose", "https://example.org/console-statement"))
    OUT.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(OUT / "civic-positions.png"))

    people = get("/v1/civic/people?" + urllib.parse.urlencode({"jurisdiction": COUNCIL, "limit": "200"}))["items"]
    person = next(p for p in people if p["name"] == member["name"])
    shown = [p for p in get("/v1/civic/people/" + person["id"])["positions"] if p["kind"] == "stated" and p["billId"] == bill]
    assert len(shown) == 1 and shown[0]["position"] == "oppose" and shown[0]["checkedOn"] == today, shown

    click_in_row(browser, "position-table", "oppose", "Remove")
    wait(browser, lambda d: "Position removed." in d.find_element(By.ID, "status").text)
    gone = [p for p in get("/v1/civic/people/" + person["id"])["positions"] if p["kind"] == "stated" and p["billId"] == bill]
    assert gone == []
