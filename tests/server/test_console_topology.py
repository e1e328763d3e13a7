"""The console's Topology panel (issue 34 item 5; docs/console.md) in headless Chromium through Selenium:
two queue managers hosted in one server with channels both ways, each channel an edge drawn in its
state's colour; a channel stopped shows STOPPED on its edge and in the table, started again RUNNING,
without a reload.  Every wait is WebDriverWait on a condition."""

from __future__ import annotations

import pytest

from qmlite.client.topology import running_topology
from tests.server.test_console import (APP_PASSWORD, browser, logged_in, no_script_errors,  # noqa: F401 (fixtures)
                                       wait)

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402

pytestmark = pytest.importorskip("tests.server.test_console").pytestmark  # skipped where Chromium is not
GREEN, RED = "rgb(26, 127, 55)", "rgb(194, 31, 50)"  # console.css --ok and --bad


def _edge(driver, name: str):
    return driver.find_element(By.CSS_SELECTOR, f'#topology-graph g.edge[data-name="{name}"]')


def _stroke(driver, name: str) -> str:
    path = _edge(driver, name).find_element(By.CSS_SELECTOR, "path")
    return driver.execute_script("return getComputedStyle(arguments[0]).stroke", path)


def _row_status(driver, name: str) -> str:
    return driver.find_element(By.CSS_SELECTOR, f'#topology tbody tr[data-name="{name}"] td.status').text


def test_the_topology_draws_each_channel_and_follows_a_stopped_one(browser, tmp_path):  # noqa: F811
    with running_topology(tmp_path, ["QM1", "QM2"], [("QM1", "QM2"), ("QM2", "QM1")], http_port=0,
                          app_password=APP_PASSWORD) as topo:
        logged_in(browser, topo["QM1"])
        wait(browser, lambda d: _edge(d, "QM1.TO.QM2").get_attribute("data-status") == "RUNNING"
             and _edge(d, "QM2.TO.QM1").get_attribute("data-status") == "RUNNING")
        nodes = browser.find_elements(By.CSS_SELECTOR, "#topology-graph g.node")
        assert [(n.get_attribute("data-name"), n.get_attribute("class")) for n in nodes] == [
            ("QM1", "node hosted current"), ("QM2", "node hosted")]
        edge = _edge(browser, "QM1.TO.QM2")
        assert (edge.get_attribute("data-from"), edge.get_attribute("data-to")) == ("QM1", "QM2")
        assert edge.find_element(By.CSS_SELECTOR, "text").text == "QM1.TO.QM2 RUNNING"
        assert _stroke(browser, "QM1.TO.QM2") == GREEN
        assert _row_status(browser, "QM1.TO.QM2") == "RUNNING"

        topo.stop_channel("QM1.TO.QM2")  # redrawn by the console's own refresh, no reload
        wait(browser, lambda d: _edge(d, "QM1.TO.QM2").get_attribute("class") == "edge state-stopped")
        assert _edge(browser, "QM1.TO.QM2").find_element(By.CSS_SELECTOR, "text").text == "QM1.TO.QM2 STOPPED"
        assert _stroke(browser, "QM1.TO.QM2") == RED
        wait(browser, lambda d: _row_status(d, "QM1.TO.QM2") == "STOPPED")
        assert _edge(browser, "QM2.TO.QM1").get_attribute("data-status") == "RUNNING"  # the other way untouched

        topo.start_channel("QM1.TO.QM2")
        wait(browser, lambda d: _edge(d, "QM1.TO.QM2").get_attribute("data-status") == "RUNNING")
        assert _stroke(browser, "QM1.TO.QM2") == GREEN


def _cluster_edge(driver, name: str, source: str):
    return driver.find_element(By.CSS_SELECTOR, f'#topology-graph g.edge[data-name="{name}"][data-from="{source}"]')


def test_a_cluster_is_boxed_and_its_channels_are_edges_labelled_by_it(browser, tmp_path):  # noqa: F811
    with running_topology(tmp_path, ["QM1", "QM2", "QM3"], cluster={"name": "DEMO", "repos": ["QM1", "QM2"]},
                          http_port=0, app_password=APP_PASSWORD) as topo:
        topo.wait_for_status("DEMO.QM2", qmgr="QM3")  # QM3's auto-defined cluster-sender has run
        logged_in(browser, topo["QM1"])
        wait(browser, lambda d: _cluster_edge(d, "DEMO.QM2", "QM3").get_attribute("data-status") == "RUNNING")
        edges = browser.find_elements(By.CSS_SELECTOR, "#topology-graph g.edge.cluster-channel")
        assert {(e.get_attribute("data-name"), e.get_attribute("data-from"), e.get_attribute("data-to"),
                 e.get_attribute("data-cluster")) for e in edges} == {
            ("DEMO.QM2", "QM1", "QM2", "DEMO"), ("DEMO.QM3", "QM1", "QM3", "DEMO"),
            ("DEMO.QM1", "QM2", "QM1", "DEMO"), ("DEMO.QM3", "QM2", "QM3", "DEMO"),
            ("DEMO.QM1", "QM3", "QM1", "DEMO"), ("DEMO.QM2", "QM3", "QM2", "DEMO")}
        auto = _cluster_edge(browser, "DEMO.QM2", "QM3")
        assert auto.find_element(By.CSS_SELECTOR, "text").text == "DEMO.QM2 [DEMO] RUNNING"
        assert "auto-defined, cluster DEMO" in auto.find_element(By.CSS_SELECTOR, "title").get_attribute(
            "textContent")
        path = auto.find_element(By.CSS_SELECTOR, "path")
        assert browser.execute_script("return getComputedStyle(arguments[0]).stroke", path) == GREEN
        # The cluster's box: one, named, around its three members.
        (box,) = browser.find_elements(By.CSS_SELECTOR, "#topology-graph g.cluster")
        assert (box.get_attribute("data-name"), box.get_attribute("data-members")) == ("DEMO", "QM1 QM2 QM3")
        assert box.find_element(By.CSS_SELECTOR, "text").text == "DEMO"
        assert box.get_attribute("class") == "cluster tint-0"
        rect = box.find_element(By.CSS_SELECTOR, "rect")
        assert browser.execute_script("return getComputedStyle(arguments[0]).stroke", rect) == "rgb(47, 111, 214)"
        inside = browser.execute_script(
            "const r = arguments[0].getBBox();"
            "return [...document.querySelectorAll('#topology-graph g.node circle')].every((c) => {"
            "  const [x, y] = [c.cx.baseVal.value, c.cy.baseVal.value];"
            "  return x > r.x && x < r.x + r.width && y > r.y && y < r.y + r.height; });",
            box.find_element(By.CSS_SELECTOR, "rect"))
        assert inside is True
        # The table names each channel's cluster, and which cluster-senders the cluster defined.
        rows = browser.find_elements(By.CSS_SELECTOR, '#topology tbody tr[data-name="DEMO.QM3"]')
        assert [(r.find_element(By.CSS_SELECTOR, "td.cluster").text, r.find_element(By.CSS_SELECTOR, "td.type").text)
                for r in rows] == [("DEMO", "CLUSSDR (auto)"), ("DEMO", "CLUSSDR (auto)")]
