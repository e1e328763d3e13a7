"""The web console (docs/console.md) in one real headless Chromium driven by Selenium, against a queue
manager started here with its REST API on a real socket: logging in, the queue manager's status, a
depth changing after an MQI put without a reload, subscriptions created, refused as duplicates, filtered,
changed and deleted through the page, and the MQSC box.  Every wait is WebDriverWait on a condition;
screenshots are decoded (PNG, with zlib) and checked."""

from __future__ import annotations

import os
import pathlib
import shutil
import struct
import zlib

import httpx
import pytest

from qmlite.client.pytest_plugin import running_qmlite
from qmlite.pcf import constants as C
from qmlite.pcf.mqi import MQMD, MQOD, MQPMO

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
WIDTH, HEIGHT = 1400, 1100
WAIT_S = 15
APP_PASSWORD = "app-passw0rd"
pytestmark = pytest.mark.skipif(not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)),
                                reason="needs Debian's chromium and chromium-driver (scripts/test installs them)")


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the whole suite, through Debian's chromedriver (Selenium Manager is never
    asked to download anything)."""
    os.environ.setdefault("SE_OFFLINE", "true")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                f"--window-size={WIDTH},{HEIGHT}", "--force-device-scale-factor=1", "--lang=en-GB",
                "--disable-extensions", "--no-first-run"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def server(tmp_path):
    with running_qmlite(tmp_path / "data", http_port=0, app_password=APP_PASSWORD) as srv:
        yield srv


@pytest.fixture(autouse=True)
def no_script_errors(request):
    """After each test that used the browser: no script error and nothing logged by the page itself
    (refused requests are the server's answers, checked by the tests, and are left out)."""
    yield
    if "browser" in request.fixturenames:
        driver = request.getfixturevalue("browser")
        assert [e for e in driver.get_log("browser") if e["source"] != "network"] == []


def wait(driver, condition, timeout: float = WAIT_S):
    """WebDriverWait on a callable of the driver; stale elements (a panel redrawn meanwhile) retry."""
    return WebDriverWait(driver, timeout, poll_frequency=0.05,
                         ignored_exceptions=(NoSuchElementException, StaleElementReferenceException)).until(condition)


def text_of(driver, css: str) -> str:
    return driver.find_element(By.CSS_SELECTOR, css).text


def open_console(driver, srv, password: str = "passw0rd", user: str = "admin") -> None:
    driver.get(f"http://127.0.0.1:{srv.http_port}/?refresh=500")  # "/" redirects to /console/
    wait(driver, EC.visibility_of_element_located((By.ID, "login")))
    box = driver.find_element(By.ID, "login-user")
    box.clear()
    box.send_keys(user)
    driver.find_element(By.ID, "login-password").send_keys(password)
    driver.find_element(By.ID, "login-submit").click()


def logged_in(driver, srv) -> None:
    open_console(driver, srv)
    wait(driver, lambda d: text_of(d, "#qmgr-state") == "running")


def cell(driver, panel: str, name: str, column: str) -> str:
    return text_of(driver, f'#{panel} tbody tr[data-name="{name}"] td.{column}')


def click(driver, css: str) -> None:
    """Click an element, found again if a poll redrew it between finding and clicking."""
    wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, css).click() or True)


def rows(driver, panel: str) -> list[str]:
    return [tr.get_attribute("data-name")
            for tr in driver.find_elements(By.CSS_SELECTOR, f"#{panel} tbody tr[data-name]")]


# ---- PNG, read with the standard library -------------------------------------------------------
def png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of RGB(A) bytes) of an 8-bit truecolour PNG such as Chromium's screenshots."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, header
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    out: list[bytes] = []
    prev = bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if kind == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif kind == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, prev))
        elif kind == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        out.append(bytes(line))
        prev = line
    return width, height, [bytes(r) if bpp == 3 else bytes(b for i, b in enumerate(r) if i % 4 != 3) for r in out]


def check_screenshot(driver, path: pathlib.Path) -> None:
    """Save the page as a PNG and check it is the console drawn with its stylesheet: the window's size,
    many colours, the header bar's navy at the top left and the page's grey below it."""
    data = driver.get_screenshot_as_png()
    path.write_bytes(data)
    width, height, pixels = png_pixels(data)
    inner = driver.execute_script("return [window.innerWidth, window.innerHeight]")
    assert (width, height) == tuple(inner)
    colours = {row[i:i + 3] for row in pixels[::7] for i in range(0, len(row), 21)}
    assert len(colours) > 20
    assert pixels[4][4 * 3:4 * 3 + 3] == bytes((0x14, 0x23, 0x3C))  # header { background: var(--bar) }
    header_px = driver.execute_script("return document.querySelector('header').offsetHeight")
    assert pixels[header_px + 4][4 * 3:4 * 3 + 3] == bytes((0xF1, 0xF4, 0xF8))  # main's --page grey


# ---- the tests ---------------------------------------------------------------------------------
def test_static_files_are_served_with_the_console_headers(server):
    base = f"http://127.0.0.1:{server.http_port}"
    r = httpx.get(base + "/")
    assert r.status_code == 302 and r.headers["location"] == "/console/"
    r = httpx.get(base + "/console/")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in r.headers["content-security-policy"] and '<script src="console.js"' in r.text
    assert "cdn" not in r.text.lower() and "http" not in r.text.split("<body>")[1]  # nothing from elsewhere
    for name, kind in (("console.js", "javascript"), ("console.css", "text/css")):
        r = httpx.get(f"{base}/console/{name}")
        assert r.status_code == 200 and kind in r.headers["content-type"]
    r = httpx.get(base + "/console/nothing.js")
    assert r.status_code == 404 and r.json()["error"][0]["msgId"] == "MQWB0002E"


def test_page_shows_qm1_running_with_its_panels(browser, server, tmp_path):
    logged_in(browser, server)
    assert browser.current_url.endswith("/console/?refresh=500")
    assert text_of(browser, "#qmgr-name") == "QM1"
    assert text_of(browser, "#qmgr-badge") == "QM1 running"
    assert text_of(browser, "#qmgr-connections") == "0"
    assert text_of(browser, "#qmgr-started")
    wait(browser, lambda d: "DEV.QUEUE.1" in rows(d, "queues"))
    assert "SYSTEM.ADMIN.COMMAND.QUEUE" not in rows(browser, "queues")  # SYSTEM objects hidden by default
    assert cell(browser, "queues", "DEV.QUEUE.1", "depth") == "0"
    assert cell(browser, "topics", "DEV.BASE.TOPIC", "topicstr") == "dev/"
    assert text_of(browser, "#channels td.empty") == "No channel is running."
    assert text_of(browser, "#connections td.empty") == "No application is connected."
    browser.find_element(By.ID, "show-system").click()
    wait(browser, lambda d: "SYSTEM.ADMIN.COMMAND.QUEUE" in rows(d, "queues"))
    browser.find_element(By.ID, "show-system").click()
    wait(browser, lambda d: "SYSTEM.ADMIN.COMMAND.QUEUE" not in rows(d, "queues"))
    check_screenshot(browser, tmp_path / "console.png")


def test_a_wrong_password_is_answered_in_the_form(browser, server):
    open_console(browser, server, password="wrong")
    wait(browser, lambda d: "MQWB0104E" in text_of(d, "#login-message"))
    assert not browser.find_element(By.ID, "panels").is_displayed()


def test_a_user_without_the_admin_role_sees_each_panel_refused(browser, server):
    open_console(browser, server, password=APP_PASSWORD, user="app")
    wait(browser, lambda d: text_of(d, "#qmgr-state") == "running")  # GET admin/qmgr is open to MQWebUser
    wait(browser, lambda d: "MQWB0103E" in text_of(d, "#queues .panel-error"))
    # Each panel's refusal arrives on its own: waited for, not assumed to have come with the first.
    wait(browser, lambda d: "MQWebAdmin" in text_of(d, "#subscriptions .panel-error"))
    wait(browser, lambda d: "MQWB0103E" in text_of(d, "#mqtt .panel-error"))
    wait(browser, lambda d: text_of(d, "#updated").startswith("Partly updated"))
    assert "stale" in browser.find_element(By.ID, "updated").get_attribute("class")
    assert text_of(browser, "#who") == "app"
    browser.find_element(By.ID, "logout").click()
    wait(browser, lambda d: d.find_element(By.ID, "login").is_displayed())
    assert text_of(browser, "#login-message") == "Logged out."


def test_depth_and_handles_follow_an_mqi_put_without_a_reload(browser, server, tmp_path):
    logged_in(browser, server)
    wait(browser, lambda d: cell(d, "queues", "DEV.QUEUE.1", "depth") == "0")
    browser.execute_script("window.sameDocument = true")
    qm = server.connect()
    try:
        hobj, _ = qm.open(MQOD(ObjectName="DEV.QUEUE.1"), C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
        qm.put(hobj, MQMD(), MQPMO(Options=C.MQPMO_NO_SYNCPOINT), b"seen by the console")
        wait(browser, lambda d: cell(d, "queues", "DEV.QUEUE.1", "depth") == "1")
        assert cell(browser, "queues", "DEV.QUEUE.1", "ipprocs") == "1"
        assert cell(browser, "queues", "DEV.QUEUE.1", "opprocs") == "1"
        wait(browser, lambda d: text_of(d, "#qmgr-connections") == "1")
        wait(browser, lambda d: cell(d, "channels", "DEV.ADMIN.SVRCONN", "status") == "RUNNING")
        conn = rows(browser, "connections")
        assert len(conn) == 1 and cell(browser, "connections", conn[0], "user") == "admin"
        assert cell(browser, "connections", conn[0], "channel") == "DEV.ADMIN.SVRCONN"
        check_screenshot(browser, tmp_path / "console-put.png")
        qm.close(hobj)
        wait(browser, lambda d: cell(d, "queues", "DEV.QUEUE.1", "ipprocs") == "0")
    finally:
        qm.disc()
    wait(browser, lambda d: text_of(d, "#qmgr-connections") == "0")
    assert browser.execute_script("return window.sameDocument") is True  # never reloaded


def test_subscriptions_create_duplicate_filter_change_delete(browser, server, tmp_path):
    logged_in(browser, server)
    wait(browser, lambda d: text_of(d, "#sub-count") == "0 subscriptions")  # SYSTEM.DEFAULT.SUB is hidden

    def fill(**fields):
        for name, value in fields.items():
            box = browser.find_element(By.ID, f"sub-{name}")
            box.clear()
            box.send_keys(value)

    def message():
        return text_of(browser, "#sub-message")

    fill(name="CONSOLE.SUB", topic="dev/console/prices", userdata="first")
    browser.find_element(By.ID, "sub-create").click()
    wait(browser, lambda d: message() == "Subscription CONSOLE.SUB created.")
    wait(browser, lambda d: "CONSOLE.SUB" in rows(d, "subscriptions"))
    assert cell(browser, "subscriptions", "CONSOLE.SUB", "topicstr") == "dev/console/prices"
    assert cell(browser, "subscriptions", "CONSOLE.SUB", "dest").startswith("SYSTEM.MANAGED.DURABLE.")
    assert cell(browser, "subscriptions", "CONSOLE.SUB", "userdata") == "first"
    wait(browser, lambda d: cell(d, "topic-status", "dev/console/prices", "subcount") == "1")

    browser.find_element(By.ID, "sub-create").click()  # the same again
    wait(browser, lambda d: "MQRCCF_SUB_ALREADY_EXISTS (3311)" in message())
    assert "error" in browser.find_element(By.ID, "sub-message").get_attribute("class")
    check_screenshot(browser, tmp_path / "console-duplicate.png")

    fill(name="OTHER.SUB", topic="dev/other", dest="DEV.QUEUE.2")
    browser.find_element(By.ID, "sub-create").click()
    wait(browser, lambda d: sorted(rows(d, "subscriptions")) == ["CONSOLE.SUB", "OTHER.SUB"])
    assert cell(browser, "subscriptions", "OTHER.SUB", "dest") == "DEV.QUEUE.2"
    browser.find_element(By.ID, "sub-filter").send_keys("prices")
    wait(browser,
         lambda d: rows(d, "subscriptions") == ["CONSOLE.SUB"] and text_of(d, "#sub-count") == "1 of 2 subscriptions")
    browser.find_element(By.ID, "sub-filter").send_keys("-none")
    wait(browser, lambda d: text_of(d, "#subscriptions td.empty") == "No subscription matches the filter.")
    browser.find_element(By.ID, "sub-filter").clear()
    browser.find_element(By.ID, "sub-filter").send_keys("console")
    wait(browser, lambda d: rows(d, "subscriptions") == ["CONSOLE.SUB"])

    click(browser, '#subscriptions tr[data-name="CONSOLE.SUB"] button.edit')
    assert browser.find_element(By.ID, "sub-topic").get_attribute("value") == "dev/console/prices"
    fill(userdata="second")
    browser.find_element(By.ID, "sub-change").click()
    wait(browser, lambda d: message() == "Subscription CONSOLE.SUB changed.")
    wait(browser, lambda d: cell(d, "subscriptions", "CONSOLE.SUB", "userdata") == "second")

    click(browser, '#subscriptions tr[data-name="CONSOLE.SUB"] button.delete')
    wait(browser, EC.alert_is_present()).accept()
    wait(browser, lambda d: message() == "Subscription CONSOLE.SUB deleted.")
    wait(browser, lambda d: rows(d, "subscriptions") == [])
    browser.find_element(By.ID, "sub-filter").clear()
    browser.find_element(By.ID, "sub-filter").send_keys("s")  # "input" fires: drawn from the last poll
    wait(browser, lambda d: rows(d, "subscriptions") == ["OTHER.SUB"])

    # The queue manager agrees: asked over REST, not through the page.
    r = httpx.post(f"{server.rest_url}/admin/action/qmgr/QM1/pcf", auth=("admin", "passw0rd"),
                   headers={"ibm-mq-rest-csrf-token": ""},
                   json={"type": "runCommandPCF", "command": "MQCMD_INQUIRE_SUBSCRIPTION",
                         "parameters": {"MQCACF_SUB_NAME": "*"}})
    names = {item["parameters"]["MQCACF_SUB_NAME"] for item in r.json()["commandResponse"]}
    assert names == {"OTHER.SUB", "SYSTEM.DEFAULT.SUB"}


def test_mqsc_box_shows_the_output_or_the_error_json(browser, server):
    logged_in(browser, server)
    box = browser.find_element(By.ID, "mqsc-text")
    assert box.get_attribute("value") == "DISPLAY QMGR"
    browser.find_element(By.ID, "mqsc-run").click()
    wait(browser, lambda d: "running" not in d.find_element(By.ID, "mqsc-output").get_attribute("class"))
    output = text_of(browser, "#mqsc-output")
    try:
        import qmlite.registry.mqsc  # noqa: F401  (being merged: the box shows its output when present)
    except ImportError:
        assert '"msgId": "MQWB0003E"' in output and "qmlite.registry.mqsc" in output
        assert "error" in browser.find_element(By.ID, "mqsc-output").get_attribute("class")
    else:
        assert "QMNAME(QM1)" in output


# ---- several queue managers behind one port (docs/multiqm.md) -------------------------------------
def test_the_console_serves_each_hosted_queue_manager(browser, tmp_path):
    from selenium.webdriver.support.ui import Select

    with running_qmlite(tmp_path / "multi", http_port=0, qmgrs=("QM2",)) as srv:
        srv.on_qmgr("QM2").mqsc("DEFINE QLOCAL(ONLY.ON.QM2)")
        logged_in(browser, srv)
        assert text_of(browser, "#qmgr-name") == "QM1"
        wait(browser, lambda d: "DEV.QUEUE.1" in rows(d, "queues"))
        assert "ONLY.ON.QM2" not in rows(browser, "queues")
        Select(browser.find_element(By.ID, "qmgr-choice")).select_by_value("QM2")
        wait(browser, lambda d: text_of(d, "#qmgr-name") == "QM2" and "ONLY.ON.QM2" in rows(d, "queues"))
        assert browser.title.startswith("QM2")
        browser.get(f"http://127.0.0.1:{srv.http_port}/console/?qmgr=QM2&refresh=500")  # chosen by the URL
        wait(browser, lambda d: text_of(d, "#qmgr-name") == "QM2")


def test_one_queue_manager_shows_no_choice(browser, server):
    logged_in(browser, server)
    assert not browser.find_element(By.ID, "qmgr-choice").is_displayed()
def test_mqsc_box_shows_every_queue_manager_attribute(browser, server):
    """After a monitoring ALTER QMGR, DISPLAY QMGR in the MQSC box shows every attribute Change Q Mgr
    takes (IBM's list, tests/support/qmgrattrs.py; never the write-only KEYRPWD and INITKEY), and the
    queue manager panel goes on rendering beside it."""
    import re

    from tests.support.qmgrattrs import EVERY

    logged_in(browser, server)
    box = browser.find_element(By.ID, "mqsc-text")
    box.clear()
    box.send_keys("ALTER QMGR STATMQI(ON) ACCTQ(ON) PERFMEV(ENABLED) CMDEV(NODISPLAY)\nDISPLAY QMGR")
    browser.find_element(By.ID, "mqsc-run").click()
    wait(browser, lambda d: "running" not in d.find_element(By.ID, "mqsc-output").get_attribute("class"))
    output = browser.find_element(By.ID, "mqsc-output").get_attribute("textContent")
    assert "ok" in browser.find_element(By.ID, "mqsc-output").get_attribute("class")
    assert "AMQ8005I: IBM MQ queue manager changed." in output
    shown = set(re.findall(r"\b([A-Z0-9]+)\(", output))
    assert {s.keyword for s in EVERY if not s.hidden} - shown == set()
    assert {s.keyword for s in EVERY if s.hidden} & shown == set()
    for pair in ("STATMQI(ON)", "ACCTQ(ON)", "PERFMEV(ENABLED)", "CMDEV(NODISPLAY)"):
        assert pair in output
    assert text_of(browser, "#qmgr-badge") == "QM1 running"
    assert text_of(browser, "#qmgr-name") == "QM1"


# ---- the MQI calls panel (qmlite's call trace, issue 23) --------------------------------------------
def test_calls_panel_shows_an_mqi_put_and_its_failure(browser, server):
    logged_in(browser, server)
    wait(browser, lambda d: text_of(d, "#calls-state") == "recording")
    qm = server.connect()
    try:
        hobj, _ = qm.open(MQOD(ObjectName="DEV.QUEUE.1"), C.MQOO_OUTPUT)
        qm.put(hobj, MQMD(), MQPMO(Options=C.MQPMO_NO_SYNCPOINT), b"traced")
        qm.close(hobj)
    finally:
        qm.disc()
    [put] = [c for c in server.calls() if c["verb"] == "MQPUT" and c["object"] == "DEV.QUEUE.1"][-1:]
    wait(browser, lambda d: str(put["seq"]) in rows(d, "calls"))
    assert cell(browser, "calls", str(put["seq"]), "verb") == "MQPUT"
    assert cell(browser, "calls", str(put["seq"]), "name") == "DEV.QUEUE.1"
    assert cell(browser, "calls", str(put["seq"]), "options") == "MQPMO_NO_SYNCPOINT"
    assert cell(browser, "calls", str(put["seq"]), "reason") == "OK"
    assert cell(browser, "calls", str(put["seq"]), "msgid") == put["msgId"]


def test_mqtt_channels_their_clients_and_an_mqtt_clients_subscription(browser, server, tmp_path):
    # The server's MQTT transport is swapped for the fake at the domain's edge (tests/support/faketelemetry.py):
    # the console reads only what Inquire Channel and Inquire Channel Status answer.
    from qmlite.registry.mqsc import run_mqsc
    from qmlite.registry.telemetry.telemetrysessions import Session
    from tests.support.faketelemetry import FakeIO

    runner = server._runner
    qm = runner.server.qm
    logged_in(browser, server)
    wait(browser, lambda d: text_of(d, "#mqtt td.empty").startswith("No MQTT channel is defined"))
    assert text_of(browser, "#mqtt-service") == "SYSTEM.MQXR.SERVICE running"  # CONTROL(QMGR): with the server

    def in_server():
        run_mqsc(qm, "DEFINE CHANNEL(SENSORS) CHLTYPE(MQTT) PORT(1884) PROTOCOL(MQTTV311)\n"
                     "DEFINE QLOCAL(SYSTEM.MQTT.TRANSMIT.QUEUE) USAGE(XMITQ)\n"
                     "DEFINE SUB('dev1:sensors/#') TOPICSTR('sensors/#') DEST(SYSTEM.MQTT.TRANSMIT.QUEUE) "
                     "DESTQMGR('dev1') SUBUSER('app')")
        qm.telemetry.stop()
        qm.telemetry.attach(FakeIO(qm.telemetry))
        qm.telemetry.start()
        qm.telemetry.sessions.add(Session("dev1", "SENSORS", conn_name="127.0.0.1(50001)",
                                                protocol="MQTTV311", client_user="app", msgs_sent=4,
                                                msgs_received=2))
        qm.telemetry.sessions.add(Session("dev2", "SENSORS", connected=False, protocol="MQTTV3"))

    runner.loop.run_sync(in_server)
    wait(browser, lambda d: "SENSORS" in rows(d, "mqtt"))
    wait(browser, lambda d: cell(d, "mqtt", "SENSORS", "status") == "RUNNING")
    assert text_of(browser, "#mqtt-service") == "SYSTEM.MQXR.SERVICE running"
    assert (cell(browser, "mqtt", "SENSORS", "port"), cell(browser, "mqtt", "SENSORS", "protocol"),
            cell(browser, "mqtt", "SENSORS", "clients")) == ("1884", "MQTTV311", "1")
    wait(browser, lambda d: rows(d, "mqtt-clients") == ["dev1", "dev2"])
    assert [cell(browser, "mqtt-clients", "dev1", c) for c in ("status", "conname", "protocol", "user", "sent",
                                                                 "received")] == [
        "RUNNING", "127.0.0.1(50001)", "MQTTV311", "app", "4", "2"]
    assert cell(browser, "mqtt-clients", "dev2", "status") == "DISCONNECTED"
    wait(browser, lambda d: "dev1:sensors/#" in rows(d, "subscriptions"))
    assert cell(browser, "subscriptions", "dev1:sensors/#", "dest") == "SYSTEM.MQTT.TRANSMIT.QUEUE @ dev1"
    assert cell(browser, "subscriptions", "dev1:sensors/#", "subuser") == "app"
    assert "SENSORS" not in rows(browser, "channels")  # the MQ channels' status panel stays theirs
    check_screenshot(browser, tmp_path / "console-mqtt.png")


# ---- the refusals panel (a 2035 that explains itself, issue 32; docs/errorlog.md) --------------------
def test_refusals_panel_shows_a_refused_put_and_the_mqsc_that_would_allow_it(browser, server):
    from qmlite.client.errors import MQIError
    from qmlite.client.sync import QueueManager

    logged_in(browser, server)
    for result in server.mqsc("DEFINE QLOCAL(ORDERS)"):
        assert result.completion_code == 0, result.text
    qm = QueueManager.connect(server.host, server.port, server.app_channel, server.qmgr, user="app",
                              password=APP_PASSWORD)
    try:
        with pytest.raises(MQIError):
            qm.open(MQOD(ObjectName="ORDERS"), C.MQOO_OUTPUT)
    finally:
        qm.close()
    [refused] = server.refusals()
    seq = str(refused["seq"])
    wait(browser, lambda d: seq in rows(d, "refusals"))
    assert cell(browser, "refusals", seq, "reason") == "2035 MQRC_NOT_AUTHORIZED"
    assert (cell(browser, "refusals", seq, "kind"), cell(browser, "refusals", seq, "user")) == ("authority", "app")
    assert cell(browser, "refusals", seq, "object") == "ORDERS"
    assert cell(browser, "refusals", seq, "why") == "missing PUT"
    assert cell(browser, "refusals", seq, "msgid") == "AMQ8077W"
    assert cell(browser, "refusals", seq, "mqsc") == "SET AUTHREC PROFILE('ORDERS') OBJTYPE(QUEUE) PRINCIPAL('app') " \
                                                     "AUTHADD(PUT)"
