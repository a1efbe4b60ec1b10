// The operator console: our own script, no libraries. It talks to the public API of the
// gateway that served it. The session (access and refresh token) lives in a variable of this
// closure only: never in a URL, a cookie, localStorage or sessionStorage, so a reload signs out.
"use strict";
(function () {
  let session = null; // {accessToken, refreshToken}
  let me = null; // the signed-in profile: {userId, username, roles}
  const $ = (id) => document.getElementById(id);

  // ------------------------------------------------------------------ API

  class ApiError extends Error {
    constructor(status, body) {
      super((body && body.message) || "HTTP " + status);
      this.status = status;
      this.body = body || {};
    }
  }

  async function send(method, path, options) {
    const opts = options || {};
    const headers = { Accept: opts.accept || "application/json" };
    if (session) headers.Authorization = "Bearer " + session.accessToken;
    let body;
    if (opts.json !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(opts.json);
    } else if (opts.text !== undefined) {
      headers["Content-Type"] = opts.contentType;
      body = opts.text;
    }
    return fetch(path, { method, headers, body, credentials: "omit", cache: "no-store", referrerPolicy: "no-referrer" });
  }

  // One call; a 401 with a session is retried once after a refresh. Answers the parsed JSON
  // (null for 204), or a Blob with {blob: true}.
  async function api(method, path, options) {
    const used = session && session.accessToken;
    let response = await send(method, path, options);
    if (response.status === 401 && session && !(options && options.noRefresh)) {
      // Another call may have renewed the session meanwhile; else renew it (once for all).
      if (session.accessToken !== used || (await refresh())) response = await send(method, path, options);
    }
    if (!response.ok) {
      let body = null;
      try { body = await response.json(); } catch (e) { body = null; }
      if (response.status === 401) signedOut("Your session ended; sign in again.");
      throw new ApiError(response.status, body);
    }
    if (options && options.blob) return response.blob();
    if (response.status === 204) return null;
    const type = response.headers.get("Content-Type") || "";
    return type.includes("json") ? response.json() : response.text();
  }

  // A refresh token is good for one use (a second use revokes the login), so calls that meet
  // a 401 together share one renewal.
  let refreshing = null;
  function refresh() {
    if (!refreshing) refreshing = renew().finally(() => { refreshing = null; });
    return refreshing;
  }

  async function renew() {
    if (!session) return false;
    try {
      const response = await fetch("/v1/auth/refresh", {
        method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({ refreshToken: session.refreshToken }), credentials: "omit", cache: "no-store",
      });
      if (!response.ok) return false;
      const next = await response.json();
      session = { accessToken: next.accessToken, refreshToken: next.refreshToken };
      return true;
    } catch (e) {
      return false;
    }
  }

  // ------------------------------------------------------------------ helpers

  function say(text, isError) {
    const status = $("status");
    status.textContent = text || "";
    status.className = isError ? "error" : "";
  }

  function explain(error) {
    if (error instanceof ApiError) {
      let text = error.status + " " + (error.body.code || "") + ": " + error.message;
      if (error.body.requestId) text += " (request " + error.body.requestId + ")";
      return text;
    }
    return String(error && error.message ? error.message : error);
  }

  // Runs an action, saying what failed; its result, or undefined.
  async function attempt(action, done) {
    try {
      const result = await action();
      if (done) say(done);
      return result;
    } catch (error) {
      say(explain(error), true);
      return undefined;
    }
  }

  function el(tag, attributes, children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (name === "text") node.textContent = value;
      else if (name === "onclick") node.addEventListener("click", value);
      else node.setAttribute(name, value === true ? "" : value);
    }
    for (const child of children || []) node.append(child);
    return node;
  }

  function row(cells) {
    return el("tr", {}, cells.map((cell) => (cell instanceof Node ? el("td", { class: "actions" }, [cell]) : el("td", { text: cell === undefined || cell === null ? "" : String(cell) }))));
  }

  function fill(tableId, rows, empty) {
    const body = $(tableId).tBodies[0];
    body.replaceChildren(...rows);
    if (rows.length === 0) {
      const columns = $(tableId).tHead.rows[0].cells.length;
      body.append(el("tr", {}, [el("td", { colspan: String(columns), class: "muted", text: empty || "nothing here" })]));
    }
  }

  function buttons(list) {
    const span = el("span");
    for (const [label, action, id] of list) span.append(el("button", { type: "button", text: label, onclick: action, "data-action": id }));
    return span;
  }

  function formJSON(form, numbers) {
    const out = {};
    for (const [name, value] of new FormData(form).entries()) {
      if (value === "") continue;
      out[name] = numbers.includes(name) ? Number(value) : value;
    }
    return out;
  }

  function download(blob, name) {
    const url = URL.createObjectURL(blob);
    const link = el("a", { href: url, download: name });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  }

  const when = (iso) => String(iso || "").replace("T", " ").replace(/\..*$/, "").replace("Z", "");
  const has = (role) => me && (me.roles.includes(role) || me.roles.includes("admin"));

  // ------------------------------------------------------------------ session

  async function signIn(event) {
    event.preventDefault();
    const username = $("username").value;
    const password = $("password").value;
    $("password").value = "";
    await attempt(async () => {
      session = await api("POST", "/v1/auth/login", { json: { username, password }, noRefresh: true });
      session = { accessToken: session.accessToken, refreshToken: session.refreshToken };
      me = await api("GET", "/v1/me");
      signedIn();
    });
  }

  async function signOut() {
    const ending = session;
    signedOut("Signed out.");
    if (ending) {
      try {
        await fetch("/v1/auth/logout", {
          method: "POST", headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ refreshToken: ending.refreshToken }), credentials: "omit",
        });
      } catch (e) { /* the session is gone from this page either way */ }
    }
  }

  function signedOut(message) {
    session = null;
    me = null;
    $("who").hidden = true;
    $("nav").hidden = true;
    for (const page of document.querySelectorAll("main > section")) page.hidden = true;
    $("signin").hidden = false;
    say(message || "");
  }

  function signedIn() {
    $("signin").hidden = true;
    $("who").hidden = false;
    $("who-name").textContent = me.username;
    $("who-roles").textContent = "(" + me.roles.join(", ") + ")";
    const nav = $("nav");
    nav.replaceChildren();
    const pages = [...document.querySelectorAll("main > section")].filter((page) => has(page.dataset.roles));
    for (const page of pages) {
      nav.append(el("button", { type: "button", text: page.dataset.title, "data-page": page.dataset.page, onclick: () => show(page.dataset.page) }));
    }
    nav.hidden = false;
    if (pages.length === 0) {
      say("This account has none of the console's roles (printer, admin, rewards_manager, civic_editor).", true);
      return;
    }
    say("Signed in as " + me.username + ".");
    show(pages[0].dataset.page);
  }

  function show(name) {
    for (const page of document.querySelectorAll("main > section")) page.hidden = page.dataset.page !== name;
    for (const button of $("nav").querySelectorAll("button")) {
      if (button.dataset.page === name) button.setAttribute("aria-current", "page");
      else button.removeAttribute("aria-current");
    }
    document.body.dataset.page = name;
    const load = loaders[name];
    if (load) load();
  }

  // ------------------------------------------------------------------ print jobs

  let printJobs = [];

  async function loadPrintJobs() {
    const status = $("print-status").value;
    const jobs = await attempt(async () => {
      const all = [];
      let cursor = null;
      for (let page = 0; page < 5; page++) {
        const query = new URLSearchParams({ limit: "500" });
        if (status) query.set("status", status);
        if (cursor) query.set("cursor", cursor);
        const list = await api("GET", "/v1/print-jobs?" + query);
        all.push(...list.items);
        cursor = list.nextCursor;
        if (!cursor) break;
      }
      return all;
    });
    if (!jobs) return;
    const cards = $("print-cards").value;
    const size = $("print-size").value;
    printJobs = jobs.filter((job) => size === "" || job.size === size).filter((job) => cards === "" || (cards === "1" && job.cards === 1) || (cards === "2-5" && job.cards >= 2 && job.cards <= 5) || (cards === "6+" && job.cards >= 6));
    fill("print-table", printJobs.map((job) => {
      const tick = el("input", { type: "checkbox", value: job.id, "data-job": job.id, disabled: job.status !== "ready" });
      const actions = [["PDF", () => jobPDF(job), "pdf"]];
      if (job.status === "ready") actions.push(["Printed", () => markJob(job, "printed"), "printed"]);
      if (job.status === "printed") actions.push(["Mailed", () => markJob(job, "mailed"), "mailed"]);
      if (["queued", "ready", "printed"].includes(job.status)) actions.push(["Failed…", () => markJob(job, "failed"), "failed"]);
      const line = row([tick, job.id, job.orderId, job.status, job.size, job.cards, when(job.createdAt), job.reason, buttons(actions)]);
      line.dataset.job = job.id;
      return line;
    }), "no print jobs in this state");
  }

  const jobStates = ["queued", "ready", "printed", "mailed", "failed"];

  // The jobs per day and state, as the server counts them (all jobs, not only those listed).
  async function loadPrintDays() {
    const days = $("print-days-count").value || "14";
    const report = await attempt(() => api("GET", "/v1/admin/print-jobs/counts?days=" + encodeURIComponent(days)));
    if (!report) return;
    const byDay = new Map();
    for (const entry of report.counts) {
      const line = byDay.get(entry.day) || { jobs: 0, cards: 0 };
      line[entry.status] = entry.jobs;
      line.jobs += entry.jobs;
      line.cards += entry.cards;
      byDay.set(entry.day, line);
    }
    fill("print-days", [...byDay.entries()].map(([d, c]) => {
      const line = row([d, ...jobStates.map((state) => c[state] || 0), c.jobs, c.cards]);
      line.dataset.day = d;
      return line;
    }), "no jobs from " + report.from + " to " + report.to);
  }

  async function markJob(job, state) {
    let json;
    if (state === "failed") {
      const reason = window.prompt("Why did job " + job.id + " fail?");
      if (!reason || !reason.trim()) return;
      json = { reason };
    }
    const done = await attempt(() => api("POST", "/v1/print-jobs/" + encodeURIComponent(job.id) + "/" + state, { json }), "Job " + job.id + " marked " + state + ".");
    if (done) {
      await loadPrintJobs();
      say("Job " + job.id + " marked " + state + ".");
    }
  }

  async function jobPDF(job) {
    const blob = await attempt(() => api("GET", "/v1/print-jobs/" + encodeURIComponent(job.id) + "/pdf", { blob: true, accept: "application/pdf" }));
    if (blob) download(blob, "print-job-" + job.id + ".pdf");
  }

  async function batchPDF() {
    const ids = [...$("print-table").querySelectorAll("input[type=checkbox]:checked")].map((box) => box.value);
    if (ids.length === 0) { say("Tick the ready jobs to print first (one card size per batch).", true); return; }
    const blob = await attempt(() => api("POST", "/v1/print-jobs/batch.pdf", { json: { ids }, blob: true, accept: "application/pdf" }), ids.length + " jobs in one PDF.");
    if (blob) download(blob, "print-batch.pdf");
  }

  // ------------------------------------------------------------------ postage

  async function loadPostage() {
    const tariff = await attempt(() => api("GET", "/v1/postage"));
    $("postage-current").textContent = tariff ? "In force: " + tariff.label + " (" + tariff.carrier + ", " + tariff.currency + ", from " + tariff.validFrom + ", loaded " + when(tariff.loadedAt) + ")" : "";
  }

  async function uploadPostage(event) {
    event.preventDefault();
    const file = $("postage-file").files[0];
    if (!file) return;
    const text = await file.text();
    $("postage-problems").hidden = true;
    try {
      const tariff = await api("PUT", "/v1/admin/postage", { text, contentType: "application/xml" });
      say("Stored postage version " + tariff.id + (tariff.active ? ", in force now." : ", not in force today."));
      loadPostage();
    } catch (error) {
      say(explain(error), true);
      const problems = (error.body && error.body.details && error.body.details.problems) || [];
      if (problems.length > 0) {
        fill("postage-problems", problems.map((p) => row([p.line, p.element, p.message])));
        $("postage-problems").hidden = false;
      }
    }
  }

  // ------------------------------------------------------------------ dead letters and queues

  async function loadDeadLetters() {
    const service = $("dead-service").value;
    const query = service ? "?service=" + encodeURIComponent(service) : "";
    const list = await attempt(() => api("GET", "/v1/admin/dead-letters" + query));
    if (!list) return;
    $("dead-unavailable").textContent = list.unavailable.length ? "Not answering: " + list.unavailable.join(", ") : "";
    $("dead-detail").hidden = true;
    fill("dead-table", list.items.map((letter) => {
      const line = row([letter.service, letter.queue, letter.kind, letter.attempts + " of " + letter.maxAttempts, letter.deadReason, when(letter.updatedAt), buttons([
        ["Inspect", () => inspect(letter), "inspect"],
        ["Retry", () => retry(letter), "retry"],
        ["Discard", () => discard(letter), "discard"],
      ])]);
      line.dataset.deadLetter = letter.id;
      return line;
    }), "no dead letters");
  }

  function inspect(letter) {
    const detail = $("dead-detail");
    detail.textContent = JSON.stringify(letter, null, 2);
    detail.hidden = false;
  }

  async function retry(letter) {
    const job = await attempt(() => api("POST", "/v1/admin/dead-letters/" + letter.service + "/" + letter.id + "/retry"));
    if (job) {
      await loadDeadLetters();
      say("Dead letter " + letter.id + " (" + letter.kind + ") queued again.");
    }
  }

  async function discard(letter) {
    if (!window.confirm("Discard dead letter " + letter.id + " (" + letter.kind + ") for good?")) return;
    const done = await attempt(async () => { await api("DELETE", "/v1/admin/dead-letters/" + letter.service + "/" + letter.id); return true; });
    if (done) {
      await loadDeadLetters();
      say("Dead letter " + letter.id + " discarded.");
    }
  }

  async function loadQueues() {
    const report = await attempt(() => api("GET", "/v1/admin/queues"));
    if (!report) return;
    const rows = [];
    for (const service of report.services) {
      if (!service.ok) rows.push(row([service.service, "not answering: " + (service.error || ""), "", "", "", ""]));
      for (const q of service.queues) rows.push(row([service.service, q.queue, q.queued, q.running, q.dead, q.oldestDueAgeSeconds + " s"]));
    }
    fill("queues-table", rows, "no job tables");
  }

  // ------------------------------------------------------------------ users and roles

  const roles = ["admin", "printer", "rewards_manager", "wifi_controller", "civic_editor"];

  let usersCursor = null;

  // The admin's list of accounts: a prefix of the username or e-mail address and a role, a
  // page at a time ("More" adds the next page).
  async function findUsers(event, more) {
    if (event) event.preventDefault();
    const query = new URLSearchParams({ limit: "50" });
    const q = $("users-q").value.trim();
    if (q) query.set("q", q);
    if ($("users-role").value) query.set("role", $("users-role").value);
    if (more && usersCursor) query.set("cursor", usersCursor);
    const list = await attempt(() => api("GET", "/v1/admin/users?" + query));
    if (!list) return;
    usersCursor = list.nextCursor || null;
    $("users-more").hidden = !usersCursor;
    const lines = list.items.map((person) => {
      const current = el("td", { class: "roles", text: person.roles.join(", ") });
      const pick = el("select", {}, roles.map((r) => el("option", { text: r })));
      const change = async (verb) => {
        const profile = await attempt(() => api("POST", "/v1/admin/users/" + person.userId + "/roles", { json: { [verb]: [pick.value] } }), (verb === "grant" ? "Granted " : "Revoked ") + pick.value + " for " + person.username + ".");
        if (profile) current.textContent = profile.roles.join(", ");
      };
      const line = el("tr", {}, [
        el("td", { text: person.username + (person.displayName ? " (" + person.displayName + ")" : "") }),
        el("td", { class: "mono", text: person.userId }),
        el("td", { text: when(person.createdAt) }),
        current,
        el("td", { class: "actions" }, [pick, buttons([["Grant", () => change("grant"), "grant"], ["Revoke", () => change("revoke"), "revoke"]])]),
      ]);
      line.dataset.user = person.username;
      return line;
    });
    if (more) $("users-table").tBodies[0].append(...lines);
    else fill("users-table", lines, "nobody found");
  }

  // ------------------------------------------------------------------ campus

  async function loadCampus() {
    await Promise.all([loadVenues(), loadEvents(), loadGoals(), loadAccessPoints()]);
  }

  async function loadVenues(event) {
    if (event) event.preventDefault();
    const q = $("venue-q").value;
    const list = await attempt(() => api("GET", "/v1/campus/venues?limit=50" + (q ? "&q=" + encodeURIComponent(q) : "")));
    if (!list) return;
    fill("venue-table", list.items.map((v) => row([v.name, v.kind, v.building, v.level, v.id, buttons([["Delete", () => remove("/v1/admin/campus/venues/" + v.id, "venue " + v.name, loadVenues), "delete"]])])), "no venues");
  }

  async function loadEvents() {
    const list = await attempt(() => api("GET", "/v1/campus/events?limit=50"));
    if (!list) return;
    fill("event-table", list.items.map((e) => row([e.title, e.kind, e.venueName || e.venueId, when(e.startsAt), when(e.endsAt), buttons([["Delete", () => remove("/v1/admin/campus/events/" + e.id, "event " + e.title, loadEvents), "delete"]])])), "no coming events");
  }

  // The goals of the week picked (any day of it; this week when none is picked).
  async function loadGoals(event) {
    if (event) event.preventDefault();
    const picked = $("goal-week").value;
    const week = await attempt(() => api("GET", "/v1/me/goals" + (picked ? "?week=" + encodeURIComponent(picked) : "")));
    // A week picked while this answer was on its way wins: the answer is for another week.
    if (!week || $("goal-week").value !== picked) return;
    if (!picked && week.weekStart) $("goal-week").value = week.weekStart;
    fill("goal-table", (week.goals || []).map((g) => {
      const goal = g.goal || g;
      const line = row([goal.title, goal.metric, goal.target, goal.reward, goal.weekStart, buttons([["Delete", () => remove("/v1/admin/campus/goals/" + goal.id, "goal " + goal.title, loadGoals), "delete"]])]);
      line.dataset.goal = goal.title;
      return line;
    }), "no goals in the week of " + (week.weekStart || picked));
  }

  function moveGoalWeek(days) {
    const picked = $("goal-week").value;
    const base = picked ? new Date(picked + "T00:00:00Z") : new Date();
    base.setUTCDate(base.getUTCDate() + days);
    $("goal-week").value = base.toISOString().slice(0, 10);
    loadGoals();
  }

  async function loadAccessPoints() {
    const list = await attempt(() => api("GET", "/v1/campus/access-points"));
    if (!list) return;
    fill("ap-table", list.accessPoints.slice(0, 200).map((ap) => row([ap.bssid, ap.name, ap.level, ap.capacity, buttons([["Delete", () => remove("/v1/admin/campus/access-points/" + encodeURIComponent(ap.bssid), "access point " + ap.bssid, loadAccessPoints), "delete"]])])), "no access points");
  }

  async function remove(path, what, reload) {
    if (!window.confirm("Delete " + what + "?")) return;
    const done = await attempt(async () => { await api("DELETE", path); return true; }, "Deleted " + what + ".");
    if (done) reload();
  }

  async function create(event, path, numbers, what, reload, method, transform) {
    event.preventDefault();
    let body = formJSON(event.target, numbers);
    const target = typeof path === "function" ? path(body) : path;
    if (transform) body = transform(body);
    const done = await attempt(() => api(method || "POST", target, { json: body }), what + " saved.");
    if (done) { event.target.reset(); reload(); }
  }

  const utc = (local) => (local ? local + (local.length === 16 ? ":00Z" : "Z") : local);

  // ------------------------------------------------------------------ vouchers and civic

  async function checkVoucher(event, redeem) {
    if (event) event.preventDefault();
    const code = $("voucher-code").value.trim();
    if (!code) return;
    const path = "/v1/rewards/" + encodeURIComponent(code) + (redeem ? "/redeem" : "");
    const voucher = await attempt(() => api(redeem ? "POST" : "GET", path), redeem ? "Voucher redeemed." : "");
    const list = $("voucher-detail");
    list.replaceChildren();
    if (!voucher) return;
    for (const [label, value] of [["Code", voucher.code], ["Goal", voucher.goal], ["Reward", voucher.reward], ["Issued", when(voucher.issuedAt)], ["Redeemed", voucher.redeemedAt ? when(voucher.redeemedAt) : "not yet"]]) {
      list.append(el("dt", { text: label }), el("dd", { text: value }));
    }
  }

  async function loadCivic() {
    const highlights = await attempt(() => api("GET", "/v1/civic/highlights"));
    if (!highlights) return;
    const rows = [];
    for (const level of highlights.levels) for (const bill of level.bills) rows.push(row([level.level, bill.identifier, bill.title, bill.status, bill.id]));
    fill("civic-table", rows, "no bills");
  }

  async function highlight(event, on) {
    if (event) event.preventDefault();
    const bill = $("civic-bill").value.trim();
    if (!bill) return;
    const done = await attempt(async () => { await api("PUT", "/v1/admin/civic/highlights/" + encodeURIComponent(bill), { json: { highlighted: on } }); return true; }, on ? "Bill highlighted." : "Bill no longer highlighted.");
    if (done) loadCivic();
  }

  // A person's stated positions, entered by an editor with the source and the day it was checked.
  let positionPerson = null;

  async function loadPositionJurisdictions() {
    const list = await attempt(() => api("GET", "/v1/civic/jurisdictions"));
    if (!list) return;
    const select = $("position-jurisdiction");
    const chosen = select.value;
    select.replaceChildren(...list.items.map((j) => el("option", { value: j.id, text: j.name + " (" + j.level + ")" })));
    if (chosen) select.value = chosen;
    loadPositionPeople();
  }

  async function loadPositionPeople(event) {
    if (event) event.preventDefault();
    const jurisdiction = $("position-jurisdiction").value;
    if (!jurisdiction) return;
    const page = await attempt(() => api("GET", "/v1/civic/people?" + new URLSearchParams({ jurisdiction, limit: "200" })));
    if (!page) return;
    fill("position-people", page.items.map((person) => row([person.name, person.office, person.district || "at large",
      el("button", { type: "button", text: "Positions", onclick: () => choosePositionPerson(person) })])), "no people");
  }

  function choosePositionPerson(person) {
    positionPerson = person;
    $("position-person-name").textContent = person.name + ", " + person.office;
    for (const id of ["position-form", "position-bill-search"]) $(id).hidden = false;
    loadPositions();
  }

  async function loadPositions() {
    if (!positionPerson) return;
    const person = await attempt(() => api("GET", "/v1/civic/people/" + encodeURIComponent(positionPerson.id)));
    if (!person) return;
    fill("position-table", person.positions.map((p) => row([p.billIdentifier, p.billTitle, p.kind, p.position, p.date,
      p.checkedOn || "", p.sourceUrl || "",
      p.kind === "stated" ? el("button", { type: "button", text: "Remove", onclick: () => removePosition(p.billId) }) : ""])),
    "position not available");
  }

  async function findPositionBills(event) {
    if (event) event.preventDefault();
    const query = new URLSearchParams({ jurisdiction: $("position-jurisdiction").value, limit: "20" });
    const words = $("position-bill-q").value.trim();
    if (words) query.set("q", words);
    const page = await attempt(() => api("GET", "/v1/civic/bills?" + query));
    if (!page) return;
    $("position-bills").hidden = false;
    fill("position-bills", page.items.map((bill) => row([bill.identifier, bill.title, bill.status,
      el("button", { type: "button", text: "Choose", onclick: () => { $("position-bill").value = bill.id; } })])), "no bills");
  }

  function positionPath(billId) {
    return "/v1/admin/civic/people/" + encodeURIComponent(positionPerson.id) + "/positions/" + encodeURIComponent(billId);
  }

  async function savePosition(event) {
    event.preventDefault();
    if (!positionPerson) return;
    const body = { position: $("position-value").value, statedOn: $("position-stated").value,
      sourceUrl: $("position-source").value.trim(), checkedOn: $("position-checked").value };
    const saved = await attempt(() => api("PUT", positionPath($("position-bill").value.trim()), { json: body }), "Position saved.");
    if (saved) loadPositions();
  }

  async function removePosition(billId) {
    const done = await attempt(async () => { await api("DELETE", positionPath(billId)); return true; }, "Position removed.");
    if (done) loadPositions();
  }

  // ------------------------------------------------------------------ wiring

  const loaders = {
    "print-jobs": () => { loadPrintJobs(); loadPrintDays(); }, postage: loadPostage, "dead-letters": loadDeadLetters, queues: loadQueues,
    users: () => findUsers(null, false), campus: loadCampus, civic: loadCivic, "civic-positions": loadPositionJurisdictions,
  };

  document.addEventListener("DOMContentLoaded", () => {
    $("signin-form").addEventListener("submit", signIn);
    $("sign-out").addEventListener("click", signOut);
    $("print-filter").addEventListener("submit", (e) => { e.preventDefault(); loadPrintJobs(); });
    $("print-batch").addEventListener("click", batchPDF);
    $("postage-form").addEventListener("submit", uploadPostage);
    $("dead-filter").addEventListener("submit", (e) => { e.preventDefault(); loadDeadLetters(); });
    $("queues-refresh").addEventListener("click", loadQueues);
    $("print-days-form").addEventListener("submit", (e) => { e.preventDefault(); loadPrintDays(); });
    $("users-search").addEventListener("submit", (e) => findUsers(e, false));
    $("users-more").addEventListener("click", () => findUsers(null, true));
    $("goal-week-form").addEventListener("submit", loadGoals);
    $("goal-week-previous").addEventListener("click", () => moveGoalWeek(-7));
    $("goal-week-next").addEventListener("click", () => moveGoalWeek(7));
    $("venue-search").addEventListener("submit", loadVenues);
    $("venue-form").addEventListener("submit", (e) => create(e, "/v1/admin/campus/venues", ["level", "lat", "lon"], "Venue", loadVenues));
    $("event-form").addEventListener("submit", (e) => create(e, "/v1/admin/campus/events", [], "Event", loadEvents, "POST", (b) => Object.assign(b, { startsAt: utc(b.startsAt), endsAt: utc(b.endsAt) })));
    $("goal-form").addEventListener("submit", (e) => create(e, "/v1/admin/campus/goals", ["target"], "Goal", loadGoals, "POST", (b) => Object.assign(b, $("goal-week").value ? { weekStart: $("goal-week").value } : {})));
    $("ap-form").addEventListener("submit", (e) => create(e, (b) => "/v1/admin/campus/access-points/" + encodeURIComponent(b.bssid), ["lat", "lon", "level", "capacity"], "Access point", loadAccessPoints, "PUT", (b) => { const c = Object.assign({}, b); delete c.bssid; return c; }));
    $("voucher-form").addEventListener("submit", (e) => checkVoucher(e, false));
    $("voucher-redeem").addEventListener("click", () => checkVoucher(null, true));
    $("civic-form").addEventListener("submit", (e) => highlight(e, true));
    $("civic-unhighlight").addEventListener("click", () => highlight(null, false));
    $("position-people-form").addEventListener("submit", loadPositionPeople);
    $("position-bill-search").addEventListener("submit", findPositionBills);
    $("position-form").addEventListener("submit", savePosition);
    signedOut("");
  });
})();
