// The Toolplane console: polls the console's JSON API and renders it. No framework, no inline code.
const TOKEN_KEY = "toolplane.console.token"
let csrf = ""
let canAct = false

const $ = (id) => document.getElementById(id)
const el = (tag, props = {}, ...children) => {
  const node = document.createElement(tag)
  for (const [k, v] of Object.entries(props)) {
    if (k === "class") node.className = v
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v)
    else node.setAttribute(k, v)
  }
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c ?? "")))
  return node
}

const headers = () => {
  const token = sessionStorage.getItem(TOKEN_KEY)
  return token ? { authorization: `Bearer ${token}` } : {}
}

const api = async (path, init = {}) => {
  const response = await fetch(`api/${path}`, { ...init, headers: { ...headers(), ...(init.headers ?? {}) } })
  if (response.status === 401 || response.status === 403) {
    $("login").hidden = false
    $("status").textContent =
      response.status === 401 ? "sign in with a bearer token" : "this token lacks the console scope"
    throw new Error(`HTTP ${response.status}`)
  }
  if (!response.ok) throw new Error(`HTTP ${response.status}`)
  return response.json()
}

const renderBackends = (backends) => {
  const body = $("backends").tBodies[0]
  body.replaceChildren(
    ...backends.map((b) =>
      el(
        "tr",
        { "data-backend": b.name, "data-healthy": String(b.healthy) },
        el("td", {}, b.name),
        el("td", { class: b.healthy ? "up" : "down" }, b.healthy ? "up" : "down"),
        el("td", {}, b.state ?? ""),
        el(
          "td",
          {},
          b.reason ?? b.lastError ?? "",
          ...b.recentErrors
            .slice(-3)
            .map((e) => el("div", { class: "muted" }, `${new Date(e.at).toLocaleTimeString()} ${e.error}`)),
        ),
        el("td", {}, b.attempts === undefined ? "" : `${b.attempts} attempts, ${b.connections} connections`),
        el("td", {}, [b.server, b.protocol].filter(Boolean).join(" · ")),
        el("td", {}, b.tools),
      ),
    ),
  )
}

const renderFeed = (feed) => {
  const recent = feed.slice(-50).reverse()
  $("feed").tBodies[0].replaceChildren(
    ...recent.map((e) =>
      el(
        "tr",
        { "data-tool": e.tool },
        el("td", {}, new Date(e.at).toLocaleTimeString()),
        el("td", {}, e.tool),
        el("td", {}, e.caller ?? "—"),
        el("td", {}, `${e.ms.toFixed(1)} ms`),
        el(
          "td",
          { class: e.outcome === "ok" ? "up" : "down" },
          e.error ? `${e.outcome} (${e.error})` : e.outcome,
        ),
      ),
    ),
  )
  const points = feed.slice(-60).map((e) => e.ms)
  const max = Math.max(1, ...points)
  const ns = "http://www.w3.org/2000/svg"
  const svg = document.createElementNS(ns, "svg")
  svg.setAttribute("class", "spark")
  svg.setAttribute("viewBox", "0 0 100 40")
  svg.setAttribute("preserveAspectRatio", "none")
  const line = document.createElementNS(ns, "polyline")
  line.setAttribute(
    "points",
    // One call is drawn as a flat line across the chart.
    (points.length === 1 ? [points[0], points[0]] : points)
      .map((ms, i, all) => `${(i / Math.max(1, all.length - 1)) * 100},${38 - (ms / max) * 36}`)
      .join(" "),
  )
  svg.append(line)
  $("chart").replaceChildren(
    el(
      "span",
      { class: "muted" },
      points.length
        ? `latency of the last ${points.length} calls (max ${max.toFixed(1)} ms)`
        : "no calls yet",
    ),
    svg,
  )
}

const decide = async (item, verb) => {
  try {
    await api(`approvals/${encodeURIComponent(item.runId)}/${encodeURIComponent(item.stepId)}/${verb}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-csrf-token": csrf },
      body: "{}",
    })
    refresh()
  } catch (error) {
    $("status").textContent = `${verb} failed: ${error.message}`
  }
}

const rejectInflight = async (item) => {
  try {
    await api(`inflight/${encodeURIComponent(item.id)}/reject`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-csrf-token": csrf },
      body: "{}",
    })
    refresh()
  } catch (error) {
    $("status").textContent = `reject failed: ${error.message}`
  }
}

const age = (ms) => (ms < 60_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`)

// An approval a client's user is being asked for: the operator may reject it, not approve in the user's place.
const renderInflight = (p) =>
  el(
    "div",
    { class: "approval inflight", "data-inflight": p.id, "data-kind": p.kind },
    el(
      "div",
      {},
      el("strong", {}, p.tool),
      ` · caller ${p.caller ?? "(anonymous)"} · waiting ${age(p.ageMs)} for the caller's user`,
      el(
        "span",
        { class: "muted" },
        p.kind === "input_required" ? " (2026-07-28 client: until its retry)" : " (2025 client: call held)",
      ),
    ),
    el("pre", {}, JSON.stringify(p.arguments, null, 2)),
    ...(canAct
      ? [el("button", { class: "reject", onclick: () => rejectInflight(p) }, "Reject")]
      : [el("span", { class: "muted" }, "your token cannot decide approvals")]),
  )

const renderRun = (p) =>
  el(
    "div",
    { class: "approval", "data-run": p.runId, "data-step": p.stepId },
    el("div", {}, el("strong", {}, p.tool), ` · ${p.skill} · run ${p.runId} · step ${p.stepId}`),
    el("pre", {}, JSON.stringify(p.arguments, null, 2)),
    ...(canAct
      ? [
          el("button", { class: "approve", onclick: () => decide(p, "approve") }, "Approve"),
          el("button", { class: "reject", onclick: () => decide(p, "reject") }, "Reject"),
        ]
      : [el("span", { class: "muted" }, "your token cannot decide approvals")]),
  )

const renderApprovals = (approvals) => {
  const items = [...(approvals.inflight ?? []).map(renderInflight), ...approvals.pending.map(renderRun)]
  if (items.length > 0) return $("approvals").replaceChildren(...items)
  $("approvals").replaceChildren(
    el(
      "p",
      { class: "muted" },
      approvals.configured ? "nothing waiting" : "nothing waiting (durable runs: set [console] runs)",
    ),
  )
}

let allTools = []
const renderTools = (rows) => {
  $("tools").tBodies[0].replaceChildren(
    ...rows.map((t) =>
      el(
        "tr",
        { "data-tool": t.id, ...(t.score === undefined ? {} : { "data-score": String(t.score) }) },
        el("td", {}, t.id),
        el("td", {}, t.score ?? ""),
        el("td", {}, (t.fields ?? []).join(", ")),
        el("td", {}, t.description ?? ""),
      ),
    ),
  )
}

const runSearch = async () => {
  const q = $("search").value.trim()
  if (q === "") return renderTools(allTools)
  const { hits } = await api(`search?q=${encodeURIComponent(q)}`)
  const byId = new Map(allTools.map((t) => [t.id, t]))
  renderTools(hits.map((h) => ({ ...h, description: byId.get(h.id)?.description })))
}

const refresh = async () => {
  try {
    const state = await api("state")
    canAct = state.canAct
    renderBackends(state.backends)
    renderFeed(state.feed)
    renderApprovals(state.approvals)
    allTools = state.tools
    if ($("search").value.trim() === "") renderTools(allTools)
    $("config").textContent = JSON.stringify(state.config, null, 2)
    const r = state.lastReload
    $("reload").textContent =
      r === null
        ? "no reload since start"
        : r.ok
          ? `last reload ${r.at}: applied, ${r.tools} tools`
          : `last reload ${r.at}: rejected: ${r.error}`
    $("status").textContent = `updated ${new Date().toLocaleTimeString()}`
    $("login").hidden = true
  } catch (error) {
    if (!$("login").hidden) return
    $("status").textContent = `cannot reach the gateway: ${error.message}`
  }
}

const start = async () => {
  try {
    csrf = (await api("session")).csrf
  } catch {
    return
  }
  await refresh()
}

$("login").addEventListener("submit", (event) => {
  event.preventDefault()
  sessionStorage.setItem(TOKEN_KEY, $("token").value)
  $("token").value = ""
  start()
})
let searchTimer
$("search").addEventListener("input", () => {
  clearTimeout(searchTimer)
  searchTimer = setTimeout(() => runSearch().catch(() => {}), 150)
})
start()
setInterval(() => {
  if (csrf) refresh()
  else start()
}, 1000)
