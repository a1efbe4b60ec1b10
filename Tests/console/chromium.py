"""Debian's Chromium, headless, for the browser tests of this folder."""
import os

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def headless_options(logging: dict) -> webdriver.ChromeOptions:
    """Options for a headless Chromium whose logs of the given kinds selenium can read."""
    options = webdriver.ChromeOptions()
    options.binary_location = next(
        (p for p in ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"] if os.path.exists(p)),
        "/usr/bin/chromium",
    )
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1000"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", logging)
    return options


def start(options: webdriver.ChromeOptions) -> webdriver.Chrome:
    """The browser, through Debian's chromedriver, with a 30 s page-load limit."""
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(30)
    return driver
