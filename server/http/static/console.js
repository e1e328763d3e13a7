// qmlite console: plain JavaScript over the REST API (docs/console.md).  Every panel is read with
// fetch and basic authentication and redrawn in place every few seconds; nothing is cached here
// but the credentials, in this tab's sessionStorage.
"use strict";

const API = "/ibmmq/rest/v2";
const CSRF = { "ibm-mq-rest-csrf-token": "qmlite-console" };
const REFRESH_MS = Math.max(250, Number(new URLSearchParams(location.search).get("refresh")) || 3000);
const AUTH_KEY = "qmlite.console.auth";
const COMMAND_FAILED = 3008;
// Inquiries that found nothing (MQRC_UNKNOWN_OBJECT_NAME, MQRC_NO_SUBSCRIPTION, MQRCCF_CHL_STATUS_NOT_FOUND,
// MQRCCF_NONE_FOUND, MQRCCF_TOPIC_STRING_NOT_FOUND): an empty table, not an error.
const NONE_FOUND = new Set([2085, 2428, 3065, 3200, 3308]);

const WORDS = {
  channelStatus: { 0: "INACTIVE", 1: "BINDING", 2: "STARTING", 3: "RUNNING", 4: "STOPPING", 5: "RETRYING",
    6: "STOPPED", 7: "REQUESTING", 8: "PAUSED", 9: "DISCONNECTED", 13: "INITIALIZING", 14: "SWITCHING" },
  channelType: { 1: "SDR", 2: "SVR", 3: "RCVR", 4: "RQSTR", 6: "CLNTCONN", 7: "SVRCONN", 8: "CLUSRCVR",
    9: "CLUSSDR", 10: "MQTT", 11: "AMQP" },
  subType: { 1: "API", 2: "ADMIN", 3: "PROXY" },
  durable: { 1: "YES", 2: "NO" },
  protocol: { 1: "MQTTV3", 2: "HTTP", 4: "MQTTV311" },  // a telemetry channel's MQPROTO_*
};
const CHL_SYSTEM_NOT_ACTIVE = 3168;  // MQRCCF_CHL_SYSTEM_NOT_ACTIVE: SYSTEM.MQXR.SERVICE is not running

const state = {
  auth: sessionStorage.getItem(AUTH_KEY), user: "", qmgr: null, subs: [], timer: null, refreshing: null, again: false,
};
const $ = (selector, root = document) => root.querySelector(selector);

class ApiError extends Error {
  constructor(status, body, text) {
    const first = body && Array.isArray(body.error) ? body.error[0] : null;
    super(first ? first.message : `HTTP ${status}: ${text.slice(0, 200)}`);
    this.status = status;
    this.body = body;
  }
}

// ---- the REST API ------------------------------------------------------------------------------
async function api(method, path, body) {
  const headers = { Accept: "application/json", Authorization: "Basic " + state.auth };
  if (method !== "GET") Object.assign(headers, CSRF, { "Content-Type": "application/json" });
  // credentials "omit": a refused password is answered here, never by the browser's own prompt.
  const response = await fetch(API + path, {
    method, headers, cache: "no-store", credentials: "omit",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch (_) { /* not JSON: reported as text */ }
  if (!response.ok) {
    const error = new ApiError(response.status, json, text);
    if (response.status === 401) showLogin(error.message);
    throw error;
  }
  return json;
}

const qmgrPath = (rest) => `/admin/action/qmgr/${encodeURIComponent(state.qmgr)}/${rest}`;

// One PCF command through qmlite's runCommandPCF extension (docs/rest.md).
function pcf(command, parameters = {}) {
  return api("POST", qmgrPath("pcf"), { type: "runCommandPCF", command, parameters });
}

// The reason a command answer failed with: "MQRCCF_SUB_ALREADY_EXISTS (3311)", or null.
function failureOf(answer) {
  if (!answer.overallCompletionCode) return null;
  const failed = answer.commandResponse.filter((item) => item.completionCode !== 0);
  const first = failed.find((item) => item.reasonCode !== COMMAND_FAILED) || failed[0];
  return first ? first : { reasonName: "MQRCCF_COMMAND_FAILED", reasonCode: COMMAND_FAILED };
}

const describe = (item) => `${item.reasonName} (${item.reasonCode})`;

// The objects an inquiry returned; none found is an empty list, any other failure an Error.
async function inquire(command, parameters) {
  const answer = await pcf(command, parameters);
  const failure = failureOf(answer);
  if (failure && !NONE_FOUND.has(failure.reasonCode)) throw new Error(`${command}: ${describe(failure)}`);
  return answer.commandResponse.filter((item) => item.completionCode === 0).map((item) => item.parameters);
}

// ---- drawing -----------------------------------------------------------------------------------
const showSystem = () => $("#show-system").checked;
const isSystem = (name) => /^(SYSTEM\.|AMQ\.|\$SYS)/.test(name || "");

function cell(row, text, className) {
  const td = row.insertCell();
  td.textContent = text === undefined || text === null ? "" : String(text);
  if (className) td.className = className;
  return td;
}

// Redraw a panel's table body, when what it shows changed: rowOf(object) gives [key, [[text, class], ...]]
// per row.  An unchanged table is left alone, so a row being clicked or hovered is not replaced under it.
const drawn = new Map();

function fill(panelId, objects, rowOf, empty = "None.") {
  const signature = JSON.stringify([objects, empty]);
  if (drawn.get(panelId) === signature) return false;
  drawn.set(panelId, signature);
  const body = $(`#${panelId} tbody`);
  const columns = $(`#${panelId} thead tr`).cells.length;
  const rows = document.createDocumentFragment();
  for (const object of objects) {
    const [key, cells] = rowOf(object);
    const tr = document.createElement("tr");
    tr.dataset.name = key;
    for (const [text, className] of cells) cell(tr, text, className);
    rows.appendChild(tr);
  }
  if (!objects.length) {
    const tr = document.createElement("tr");
    const td = cell(tr, empty, "empty");
    td.colSpan = columns;
    rows.appendChild(tr);
  }
  body.replaceChildren(rows);
  return true;
}

function panelError(panelId, error) {
  const p = $(`#${panelId} .panel-error`);
  if (p) p.textContent = error ? error.message : "";
}

const byName = (key) => (a, b) => String(a[key]).localeCompare(String(b[key]));

// ---- panels ------------------------------------------------------------------------------------
const panels = {
  async qmgr() {
    const answer = await api("GET", `/admin/qmgr/${encodeURIComponent(state.qmgr)}?status=*`);
    const q = answer.qmgr[0];
    $("#qmgr-name").textContent = q.name;
    $("#qmgr-state").textContent = q.state;
    $("#qmgr-state").className = `state-${q.state}`;
    $("#qmgr-started").textContent = new Date(q.status.started).toLocaleString();
    $("#qmgr-connections").textContent = q.status.connectionCount;
    $("#qmgr-badge").textContent = `${q.name} ${q.state}`;
    $("#qmgr-badge").className = `badge state-${q.state}`;
  },

  async queues() {
    const queues = (await inquire("MQCMD_INQUIRE_Q_STATUS", { MQCA_Q_NAME: "*" }))
      .filter((q) => showSystem() || !isSystem(q.MQCA_Q_NAME)).sort(byName("MQCA_Q_NAME"));
    fill("queues", queues, (q) => [q.MQCA_Q_NAME, [
      [q.MQCA_Q_NAME, "name"], [q.MQIA_CURRENT_Q_DEPTH, "num depth"], [q.MQIA_OPEN_INPUT_COUNT, "num ipprocs"],
      [q.MQIA_OPEN_OUTPUT_COUNT, "num opprocs"], [q.MQIACF_UNCOMMITTED_MSGS, "num uncom"]]]);
  },

  async topics() {
    const topics = (await inquire("MQCMD_INQUIRE_TOPIC", { MQCA_TOPIC_NAME: "*" }))
      .filter((t) => showSystem() || !isSystem(t.MQCA_TOPIC_NAME)).sort(byName("MQCA_TOPIC_NAME"));
    fill("topics", topics, (t) => [t.MQCA_TOPIC_NAME, [
      [t.MQCA_TOPIC_NAME, "name"], [t.MQCA_TOPIC_STRING, "topicstr"], [t.MQCA_TOPIC_DESC, "descr"]]]);
  },

  async "topic-status"() {
    const nodes = (await inquire("MQCMD_INQUIRE_TOPIC_STATUS", { MQCA_TOPIC_STRING: "#" }))
      .filter((t) => showSystem() || !isSystem(t.MQCA_TOPIC_STRING)).sort(byName("MQCA_TOPIC_STRING"));
    fill("topic-status", nodes, (t) => [t.MQCA_TOPIC_STRING, [
      [t.MQCA_TOPIC_STRING, "topicstr"], [t.MQCA_ADMIN_TOPIC_NAME, "admin"], [t.MQIA_SUB_COUNT, "num subcount"],
      [t.MQIA_PUB_COUNT, "num pubcount"], [t.MQIACF_RETAINED_PUBLICATION === 1 ? "YES" : "NO", "retained"]]]);
  },

  async subscriptions() {
    state.subs = (await inquire("MQCMD_INQUIRE_SUBSCRIPTION", { MQCACF_SUB_NAME: "*" })).sort(byName("MQCACF_SUB_NAME"));
    drawSubscriptions();
  },

  async channels() {
    const channels = (await inquire("MQCMD_INQUIRE_CHANNEL_STATUS", { MQCACH_CHANNEL_NAME: "*" }))
      .filter((c) => showSystem() || !isSystem(c.MQCACH_CHANNEL_NAME)).sort(byName("MQCACH_CHANNEL_NAME"));
    fill("channels", channels, (c) => [c.MQCACH_CHANNEL_NAME, [
      [c.MQCACH_CHANNEL_NAME, "name"], [WORDS.channelType[c.MQIACH_CHANNEL_TYPE] || c.MQIACH_CHANNEL_TYPE, "type"],
      [c.MQCACH_CONNECTION_NAME, "conname"],
      [WORDS.channelStatus[c.MQIACH_CHANNEL_STATUS] || c.MQIACH_CHANNEL_STATUS, "status"],
      [c.MQIACH_CURRENT_SHARING_CONVS, "num convs"], [c.MQIACH_MSGS, "num msgs"]]], "No channel is running.");
  },

  async connections() {
    const conns = await inquire("MQCMD_INQUIRE_CONNECTION", { MQBACF_GENERIC_CONNECTION_ID: "" });
    fill("connections", conns, (c) => [c.MQBACF_CONNECTION_ID, [
      [c.MQBACF_CONNECTION_ID.slice(32), "conn"], [c.MQCACH_CHANNEL_NAME, "channel"],
      [c.MQCACH_CONNECTION_NAME, "conname"], [c.MQCACF_USER_IDENTIFIER, "user"], [c.MQCACF_APPL_TAG, "appl"]]],
    "No application is connected.");
  },
};

// ---- MQTT: the telemetry channels, their status and their clients (docs/mqtt.md "Administration") ------
// The run-time status comes from SYSTEM.MQXR.SERVICE; while it is stopped the channels show STOPPED.
async function telemetryStatus(parameters) {
  const answer = await pcf("MQCMD_INQUIRE_CHANNEL_STATUS",
    { MQCACH_CHANNEL_NAME: "*", MQIACH_CHANNEL_TYPE: "MQCHT_MQTT", ...parameters });
  const failure = failureOf(answer);
  if (failure && failure.reasonCode === CHL_SYSTEM_NOT_ACTIVE) return null;
  if (failure && !NONE_FOUND.has(failure.reasonCode)) throw new Error(`Inquire Channel Status: ${describe(failure)}`);
  return answer.commandResponse.filter((item) => item.completionCode === 0).map((item) => item.parameters);
}

panels.mqtt = async function mqtt() {
  const channels = (await inquire("MQCMD_INQUIRE_CHANNEL", { MQCACH_CHANNEL_NAME: "*", MQIACH_CHANNEL_TYPE: "MQCHT_MQTT" }))
    .sort(byName("MQCACH_CHANNEL_NAME"));
  const summary = await telemetryStatus({});
  const clients = summary ? await telemetryStatus({ MQCACH_CLIENT_ID: "*",
    MQIACH_CHANNEL_INSTANCE_ATTRS: ["MQIACF_ALL"] }) : [];
  $("#mqtt-service").textContent = summary ? "SYSTEM.MQXR.SERVICE running" : "SYSTEM.MQXR.SERVICE stopped";
  const statusOf = new Map((summary || []).map((s) => [s.MQCACH_CHANNEL_NAME, s]));
  fill("mqtt", channels, (c) => {
    const s = statusOf.get(c.MQCACH_CHANNEL_NAME) || {};
    return [c.MQCACH_CHANNEL_NAME, [
      [c.MQCACH_CHANNEL_NAME, "name"], [c.MQIACH_PORT, "num port"],
      [(c.MQIACH_PROTOCOL || []).map((p) => WORDS.protocol[p] || p).join(","), "protocol"],
      [WORDS.channelStatus[s.MQIACH_CHANNEL_STATUS ?? 6], "status"], [s.MQIACF_CONNECTION_COUNT ?? 0, "num clients"]]];
  }, "No MQTT channel is defined (DEFINE CHANNEL ... CHLTYPE(MQTT)).");
  fill("mqtt-clients", clients.sort(byName("MQCACH_CLIENT_ID")), (c) => [c.MQCACH_CLIENT_ID, [
    [c.MQCACH_CLIENT_ID, "clientid"], [c.MQCACH_CHANNEL_NAME, "channel"],
    [WORDS.channelStatus[c.MQIACH_CHANNEL_STATUS] || c.MQIACH_CHANNEL_STATUS, "status"],
    [c.MQCACH_CONNECTION_NAME, "conname"], [WORDS.protocol[c.MQIACH_PROTOCOL] || c.MQIACH_PROTOCOL, "protocol"],
    [c.MQCACH_CLIENT_USER_ID, "user"], [c.MQIACH_MSGS_SENT, "num sent"], [c.MQIACH_MSGS_RECEIVED, "num received"]]],
  "No MQTT client.");
};

// ---- MQI calls (qmlite's call trace, docs/rest.md "calls"): the last 50 calls, newest first ---------
panels.calls = async function calls() {
  const answer = await api("GET", `/admin/qmgr/${encodeURIComponent(state.qmgr)}/qmlite/calls?limit=50`);
  $("#calls-state").textContent = answer.recording ? "recording" : "not recording (ALTER QMLTRACE RECORD(ON))";
  fill("calls", answer.calls.slice().reverse(), (c) => [String(c.seq), [
    [new Date(c.time * 1000).toLocaleTimeString(), "time"], [c.connectionId.slice(32), "conn"], [c.applName, "appl"],
    [c.verb, "verb"], [c.object, "name"], [c.optionNames, "options"], [c.reason ? c.reasonName : "OK", "reason"],
    [c.msgId, "msgid"], [c.micros, "num micros"]]], "No MQI call recorded.");
};

// ---- refusals (a 2035 that explains itself, docs/errorlog.md): the last 50, newest first ------------
panels.refusals = async function refusals() {
  const answer = await api("GET", `/admin/qmgr/${encodeURIComponent(state.qmgr)}/qmlite/refusals?limit=50`);
  fill("refusals", answer.refusal.slice().reverse(), (r) => [String(r.seq), [
    [r.time, "time"], [`${r.reason} ${r.reason_name}`, "reason"], [r.kind, "kind"], [r.user, "user"],
    [r.address, "address"], [r.channel, "name"], [r.object, "object"],
    [r.rule || (r.missing.length ? `missing ${r.missing.join(",")}` : r.detail), "why"], [r.message_id, "msgid"],
    [r.mqsc.join("\n"), "mqsc"]]], "No refusal since the start.");
};

function drawSubscriptions() {
  const filter = $("#sub-filter").value.trim().toLowerCase();
  const all = state.subs.filter((s) => showSystem() || !isSystem(s.MQCACF_SUB_NAME));
  const shown = all.filter((s) => !filter || s.MQCACF_SUB_NAME.toLowerCase().includes(filter)
    || s.MQCA_TOPIC_STRING.toLowerCase().includes(filter));
  // A destination on another "queue manager" (DESTQMGR other than this one's: an MQTT client's identifier
  // for its subscriptions, docs/mqtt.md) is shown as queue @ queue manager.
  const destination = (s) => s.MQCACF_DESTINATION_Q_MGR && s.MQCACF_DESTINATION_Q_MGR !== state.qmgr
    ? `${s.MQCACF_DESTINATION} @ ${s.MQCACF_DESTINATION_Q_MGR}` : s.MQCACF_DESTINATION;
  const redrawn = fill("subscriptions", shown, (s) => [s.MQCACF_SUB_NAME, [
    [s.MQCACF_SUB_NAME, "name"], [s.MQCA_TOPIC_STRING, "topicstr"], [destination(s), "dest"],
    [WORDS.durable[s.MQIACF_DURABLE_SUBSCRIPTION], "durable"], [WORDS.subType[s.MQIACF_SUB_TYPE], "subtype"],
    [s.MQCACF_SUB_USER_ID, "subuser"], [s.MQCACF_SUB_USER_DATA, "userdata"], ["", "actions"]]],
  filter ? "No subscription matches the filter." : "None.");
  $("#sub-count").textContent = `${filter ? `${shown.length} of ` : ""}${all.length} subscription${all.length === 1 ? "" : "s"}`;
  if (!redrawn) return;
  for (const tr of $("#subscriptions tbody").rows) {
    const sub = shown.find((s) => s.MQCACF_SUB_NAME === tr.dataset.name);
    if (!sub) continue;
    const actions = $(".actions", tr);
    actions.append(button("Edit", "edit", () => editSubscription(sub)),
      button("Delete", "delete", () => deleteSubscription(sub.MQCACF_SUB_NAME)));
  }
}

function button(text, className, onClick) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = text;
  b.className = `small ${className}`;
  b.addEventListener("click", onClick);
  return b;
}

// ---- refreshing --------------------------------------------------------------------------------
// One refresh at a time: asked for while one runs, another follows it; then the next poll is timed.
async function refresh() {
  if (state.refreshing) {
    state.again = true;
    return state.refreshing;
  }
  clearTimeout(state.timer);
  state.refreshing = loadPanels();
  try {
    await state.refreshing;
  } finally {
    state.refreshing = null;
  }
  if (!state.auth) return;  // logged out meanwhile
  if (state.again) {
    state.again = false;
    return refresh();
  }
  state.timer = setTimeout(refresh, REFRESH_MS);
}

async function loadPanels() {
  const results = await Promise.allSettled(Object.entries(panels).map(async ([id, load]) => {
    try {
      await load();
      panelError(id, null);
    } catch (error) {
      panelError(id, error);
      throw error;
    }
  }));
  const failed = results.filter((r) => r.status === "rejected").length;
  const updated = $("#updated");
  updated.textContent = `${failed ? "Partly updated" : "Updated"} ${new Date().toLocaleTimeString()}`;
  updated.classList.toggle("stale", failed > 0);
}

// ---- subscriptions -----------------------------------------------------------------------------
function subMessage(text, ok) {
  const p = $("#sub-message");
  p.textContent = text;
  p.className = `message ${ok ? "ok" : "error"}`;
}

async function subCommand(command, parameters, done) {
  try {
    const failure = failureOf(await pcf(command, parameters));
    if (failure) subMessage(`${command} failed: ${describe(failure)}`, false);
    else subMessage(done, true);
  } catch (error) {
    subMessage(error.message, false);
  }
  await refresh();
}

function formValues() {
  const v = (id) => $(id).value.trim();
  return { name: v("#sub-name"), topic: v("#sub-topic"), dest: v("#sub-dest"), selector: v("#sub-selector"),
    userdata: $("#sub-userdata").value };
}

function createSubscription(event) {
  event.preventDefault();
  const f = formValues();
  const parameters = { MQCACF_SUB_NAME: f.name, MQCA_TOPIC_STRING: f.topic };
  if (f.dest) Object.assign(parameters, { MQCACF_DESTINATION: f.dest, MQIACF_DESTINATION_CLASS: "MQDC_PROVIDED" });
  else parameters.MQIACF_DESTINATION_CLASS = "MQDC_MANAGED";
  if (f.selector) parameters.MQCACF_SUB_SELECTOR = f.selector;
  if (f.userdata) parameters.MQCACF_SUB_USER_DATA = f.userdata;
  return subCommand("MQCMD_CREATE_SUBSCRIPTION", parameters, `Subscription ${f.name} created.`);
}

function changeSubscription() {
  const f = formValues();
  if (!f.name) return subMessage("Name the subscription to change.", false);
  const parameters = { MQCACF_SUB_NAME: f.name, MQCACF_SUB_USER_DATA: f.userdata };
  if (f.dest) parameters.MQCACF_DESTINATION = f.dest;
  return subCommand("MQCMD_CHANGE_SUBSCRIPTION", parameters, `Subscription ${f.name} changed.`);
}

function editSubscription(sub) {
  $("#sub-name").value = sub.MQCACF_SUB_NAME;
  $("#sub-topic").value = sub.MQCA_TOPIC_STRING;
  $("#sub-dest").value = sub.MQIACF_DESTINATION_CLASS === 2 ? sub.MQCACF_DESTINATION : "";
  $("#sub-selector").value = sub.MQCACF_SUB_SELECTOR;
  $("#sub-userdata").value = sub.MQCACF_SUB_USER_DATA;
  subMessage(`Editing ${sub.MQCACF_SUB_NAME}: change the destination or user data, then Change.`, true);
}

function deleteSubscription(name) {
  if (!confirm(`Delete subscription ${name}?`)) return;
  return subCommand("MQCMD_DELETE_SUBSCRIPTION", { MQCACF_SUB_NAME: name }, `Subscription ${name} deleted.`);
}

// ---- MQSC --------------------------------------------------------------------------------------
async function runMqsc(event) {
  event.preventDefault();
  const out = $("#mqsc-output");
  out.className = "output running";
  out.textContent = "Running…";
  try {
    const commands = $("#mqsc-text").value.split("\n").map((line) => line.trim()).filter(Boolean);
    const lines = [];
    let failed = false;
    for (const command of commands) {
      const answer = await api("POST", qmgrPath("mqsc"), { type: "runCommand", parameters: { command } });
      failed ||= answer.overallCompletionCode !== 0;
      for (const item of answer.commandResponse) lines.push(...item.text);
      lines.push("");
    }
    out.textContent = lines.join("\n");
    out.className = failed ? "output error" : "output ok";
  } catch (error) {
    out.textContent = error.body ? JSON.stringify(error.body, null, 2) : error.message;
    out.className = "output error";
  }
  refresh();
}

// ---- logging in --------------------------------------------------------------------------------
function showLogin(message) {
  clearTimeout(state.timer);
  state.auth = null;
  sessionStorage.removeItem(AUTH_KEY);
  $("#panels").hidden = true;
  $("#live").hidden = true;
  $("#login").hidden = false;
  $("#login-message").textContent = message || "";
  $("#login-password").focus();
}

// Several queue managers behind one port (docs/multiqm.md): ?qmgr=NAME or the header's list picks one.
function chooseQmgr(entries) {
  const names = entries.map((q) => q.name);
  const wanted = new URLSearchParams(location.search).get("qmgr");
  const choice = $("#qmgr-choice");
  choice.replaceChildren(...names.map((name) => Object.assign(document.createElement("option"), { value: name, textContent: name })));
  choice.hidden = names.length < 2;
  state.qmgr = names.includes(wanted) ? wanted : names[0];
  choice.value = state.qmgr;
}

function switchQmgr() {
  state.qmgr = $("#qmgr-choice").value;
  document.title = `${state.qmgr} · qmlite console`;
  refresh();
}

async function start() {
  const answer = await api("GET", "/admin/qmgr");
  chooseQmgr(answer.qmgr);
  state.user = new TextDecoder().decode(Uint8Array.from(atob(state.auth), (c) => c.charCodeAt(0))).split(":")[0];
  $("#who").textContent = state.user;
  $("#login").hidden = true;
  $("#panels").hidden = false;
  $("#live").hidden = false;
  document.title = `${state.qmgr} · qmlite console`;
  await refresh();
}

async function logIn(event) {
  event.preventDefault();
  const user = $("#login-user").value.trim();
  // btoa takes Latin-1: encode the UTF-8 bytes of the credentials first.
  const bytes = new TextEncoder().encode(`${user}:${$("#login-password").value}`);
  state.auth = btoa(String.fromCharCode(...bytes));
  try {
    await start();
    sessionStorage.setItem(AUTH_KEY, state.auth);
  } catch (error) {
    if (error.status !== 401) showLogin(error.message);
  }
}

// ---- qmlite's fault rules (docs/faults.md): what is set, how often it matched and fired ------------
panels.faults = async function faults() {
  const answer = await api("GET", `/admin/qmgr/${encodeURIComponent(state.qmgr)}/qmlite/fault`);
  fill("faults", answer.fault, (f) => [f.name, [
    [f.name, "name"], [f.verb.join(","), "verb"], [f.object, "object"],
    [f.action === "FAIL" ? `FAIL ${f.reason}` : f.action === "DELAY" ? `DELAY ${f.delay} ms` : f.action, "action"],
    [f.matched, "num matched"], [f.fired, "num fired"]]], "No fault rule is set.");
};

// ---- the topology (issue 34; docs/channels.md "The topology"): the queue managers hosted here and the
// partners their message channels name, an edge per channel coloured by its state (qmlite/topology) -----
const SVG_NS = "http://www.w3.org/2000/svg";
const EDGE_STATES = ["running", "retrying", "stopped", "inactive", "indoubt", "other"];
const GRAPH = { width: 900, height: 380, radius: 28, bend: 36 };

function svg(tag, attributes, parent) {
  const element = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  if (parent) parent.appendChild(element);
  return element;
}

const edgeStatus = (e) => (e.inDoubt ? `${e.status} IN DOUBT` : e.status);
// A cluster channel's label names its cluster: "DEMO.QM2 [DEMO] RUNNING".
const edgeLabel = (e) => (e.cluster ? `${e.name} [${e.cluster}] ${edgeStatus(e)}` : `${e.name} ${edgeStatus(e)}`);
// Each cluster's box gets the next of the stylesheet's tints (.tint-0 ...; the CSP allows no inline style).
const CLUSTER_TINTS = 6;

// A box around each cluster's members, tinted by cluster, its name at the top left; a second cluster
// with the same members gets a box a little larger, so both show.
function drawClusters(clusters, places, parts) {
  clusters.forEach((c, i) => {
    const points = c.qmgr.filter((name) => places.has(name)).map((name) => places.get(name));
    if (!points.length) return;
    const pad = GRAPH.radius + 8 + 6 * i;
    const xs = points.map((p) => p[0]);
    const ys = points.map((p) => p[1]);
    const [x, y] = [Math.min(...xs) - pad, Math.min(...ys) - pad - 12];
    const g = svg("g", { class: `cluster tint-${i % CLUSTER_TINTS}`, "data-name": c.name,
      "data-members": c.qmgr.join(" ") }, parts);
    svg("title", {}, g).textContent = `cluster ${c.name}: ${c.qmgr.join(", ")}`;
    svg("rect", { x: x.toFixed(1), y: y.toFixed(1), width: (Math.max(...xs) + pad - x).toFixed(1),
      height: (Math.max(...ys) + pad - y).toFixed(1), rx: 14 }, g);
    svg("text", { x: (x + 10).toFixed(1), y: (y + 16).toFixed(1) }, g).textContent = c.name;
  });
}

// Each node on an ellipse, the first (the default queue manager) at the top (two: side by side).
function nodePlaces(nodes) {
  const { width, height, radius } = GRAPH;
  const [cx, cy, rx, ry] = [width / 2, height / 2, width / 2 - radius - 90, height / 2 - radius - 24];
  const first = nodes.length === 2 ? Math.PI : -Math.PI / 2;
  const places = new Map();
  nodes.forEach((node, i) => {
    const angle = (2 * Math.PI * i) / nodes.length + first;
    places.set(node.name, nodes.length === 1 ? [cx, cy] : [cx + rx * Math.cos(angle), cy + ry * Math.sin(angle)]);
  });
  return places;
}

// A channel's curve: bent to its left, so the two directions between a pair (and several channels the same
// way) stay apart; it starts and ends at the nodes' circles.
function edgeCurve(from, to, nth) {
  const [x1, y1] = from;
  const [x2, y2] = to;
  const length = Math.hypot(x2 - x1, y2 - y1) || 1;
  const [nx, ny] = [(y1 - y2) / length, (x2 - x1) / length];
  const bend = GRAPH.bend * (1 + nth);
  const [qx, qy] = [(x1 + x2) / 2 + nx * bend, (y1 + y2) / 2 + ny * bend];
  const toward = (x, y, r) => {
    const d = Math.hypot(qx - x, qy - y) || 1;
    return [x + ((qx - x) / d) * r, y + ((qy - y) / d) * r];
  };
  const [sx, sy] = toward(x1, y1, GRAPH.radius);
  const [ex, ey] = toward(x2, y2, GRAPH.radius + 2);
  // The label just outside the curve's apex, anchored away from it so the two directions' labels never overlap.
  const anchor = Math.abs(nx) < 0.3 ? "middle" : nx > 0 ? "start" : "end";
  return { d: `M${sx.toFixed(1)},${sy.toFixed(1)} Q${qx.toFixed(1)},${qy.toFixed(1)} ${ex.toFixed(1)},${ey.toFixed(1)}`,
    label: [(x1 + x2) / 2 + nx * (bend / 2 + 6), (y1 + y2) / 2 + ny * (bend / 2 + 6) + (ny > 0.3 ? 8 : 0)], anchor };
}

function drawTopology(doc) {
  const signature = JSON.stringify([doc, state.qmgr]);
  if (drawn.get("topology-graph") === signature) return;
  drawn.set("topology-graph", signature);
  const root = $("#topology-graph");
  const parts = document.createDocumentFragment();
  const defs = svg("defs", {}, parts);
  for (const s of EDGE_STATES) {
    const marker = svg("marker", { id: `arrow-${s}`, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7,
      markerHeight: 7, orient: "auto" }, defs);
    svg("path", { d: "M0,0 L10,5 L0,10 z", class: `arrow-${s}` }, marker);
  }
  const places = nodePlaces(doc.qmgr);
  drawClusters(doc.cluster || [], places, parts);
  const seen = new Map();
  for (const e of doc.channel) {
    const pair = `${e.from}\u0000${e.to}`;
    const nth = seen.get(pair) || 0;
    seen.set(pair, nth + 1);
    const curve = edgeCurve(places.get(e.from), places.get(e.to), nth);
    const g = svg("g", { class: `edge state-${e.state}${e.cluster ? " cluster-channel" : ""}`, "data-name": e.name,
      "data-status": e.status, "data-state": e.state, "data-from": e.from, "data-to": e.to,
      "data-cluster": e.cluster || "" }, parts);
    svg("title", {}, g).textContent = `${e.name} (${e.type}${e.auto ? ", auto-defined" : ""}`
      + `${e.cluster ? `, cluster ${e.cluster}` : ""}) ${e.from} → ${e.to}: ${edgeStatus(e)}`
      + (e.receiverStatus ? `, receiver ${e.receiverStatus}` : "") + `, ${e.msgs} messages`;
    svg("path", { d: curve.d, "marker-end": `url(#arrow-${e.state})` }, g);
    const label = svg("text", { x: curve.label[0].toFixed(1), y: curve.label[1].toFixed(1), "text-anchor": curve.anchor }, g);
    label.textContent = edgeLabel(e);
  }
  for (const n of doc.qmgr) {
    const [x, y] = places.get(n.name);
    const kind = [n.hosted ? "hosted" : "partner", n.name === state.qmgr ? "current" : "", n.state === "ended" ? "ended" : ""];
    const g = svg("g", { class: `node ${kind.filter(Boolean).join(" ")}`, "data-name": n.name }, parts);
    svg("title", {}, g).textContent = n.hosted ? `${n.name} (hosted here, ${n.state})` : `${n.name} (a partner)`;
    svg("circle", { cx: x.toFixed(1), cy: y.toFixed(1), r: GRAPH.radius }, g);
    const above = y < GRAPH.height / 2;  // the name outside the ring, clear of the edges' arrows
    svg("text", { x: x.toFixed(1), y: (above ? y - GRAPH.radius - 11 : y + GRAPH.radius + 13).toFixed(1) }, g)
      .textContent = n.name;
  }
  root.replaceChildren(parts);
}

panels.topology = async function topology() {
  const doc = await api("GET", "/admin/qmlite/topology");
  drawTopology(doc);
  fill("topology", doc.channel, (e) => [e.name, [
    [e.name, "name"], [e.auto ? `${e.type} (auto)` : e.type, "type"], [e.cluster || "", "cluster"],
    [e.from, "from"], [e.to, "to"], [edgeStatus(e), "status"],
    [e.receiverStatus || "", "receiver"], [e.msgs, "num msgs"], [e.batches, "num batches"]]],
  "No message channel is defined.");
};

document.addEventListener("DOMContentLoaded", () => {
  $("#login").addEventListener("submit", logIn);
  $("#qmgr-choice").addEventListener("change", switchQmgr);
  $("#logout").addEventListener("click", () => showLogin("Logged out."));
  $("#sub-form").addEventListener("submit", createSubscription);
  $("#sub-change").addEventListener("click", changeSubscription);
  $("#sub-filter").addEventListener("input", drawSubscriptions);
  $("#show-system").addEventListener("change", refresh);
  $("#mqsc-form").addEventListener("submit", runMqsc);
  if (state.auth) start().catch((error) => showLogin(error.message));
  else showLogin("");
});
