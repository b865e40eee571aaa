/**
 * The read-only web console of `toolplane serve` (`[console] enabled = true`): a static page, its script
 * and style (shipped in this module: no CDN, works offline) at `/console/`, and its data at
 * `/console/api/state` (backends with health and tool counts, the live call feed, approvals waiting, the
 * last reload). The page carries no data; the API needs, when `[server.auth]` is configured, a bearer
 * token with the console scope (401 without a valid token, 403 without the scope). The page sends the
 * token in the `authorization` header from session storage, never in a cookie, so another site cannot
 * make a browser send it (no CSRF surface). Every answer has a strict Content-Security-Policy.
 *
 * @since 0.3.0
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { McpHttpAuth } from "@toolplane/plugin-mcp"
import type { RecentCall } from "./operations.js"

/**
 * What the console shows.
 *
 * @since 0.3.0
 */
export interface ConsoleState {
  readonly backends: readonly {
    readonly name: string
    readonly healthy: boolean
    readonly tools: number
    readonly error?: string
  }[]
  readonly calls: readonly RecentCall[]
  readonly approvalsPending: number
  readonly lastReload?: { readonly ts: string; readonly ok: boolean; readonly detail: string }
}

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Toolplane console</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="favicon.svg">
<link rel="stylesheet" href="console.css">
<script src="console.js" defer></script>
</head>
<body>
<header><h1>Toolplane console</h1><span id="status">loading…</span></header>
<section id="login" hidden>
<label for="token">Bearer token (needs the console scope)</label>
<input id="token" type="password" autocomplete="off"><button id="use">Use</button>
</section>
<section><h2>Backends</h2><table id="backends"><thead><tr><th>backend</th><th>health</th><th>tools</th><th>error</th></tr></thead><tbody></tbody></table></section>
<section><h2>Approvals waiting</h2><p id="approvals">0</p></section>
<section><h2>Last reload</h2><p id="reload">none</p></section>
<section><h2>Calls</h2><table id="calls"><thead><tr><th>time</th><th>tool</th><th>backend</th><th>caller</th><th>outcome</th><th>ms</th></tr></thead><tbody></tbody></table></section>
</body>
</html>
`

const SCRIPT = `"use strict";
const $ = (id) => document.getElementById(id);
const cell = (text) => { const td = document.createElement("td"); td.textContent = String(text); return td; };
const rows = (table, items, cells) => {
  const body = $(table).tBodies[0];
  body.replaceChildren(...items.map((item) => { const tr = document.createElement("tr"); tr.append(...cells(item).map(cell)); return tr; }));
};
let authRequired;
const load = async () => {
  const token = sessionStorage.getItem("toolplane-token");
  if (authRequired === undefined) authRequired = (await (await fetch("api/auth", { cache: "no-store" })).json()).required;
  if (authRequired && !token) {
    $("login").hidden = false;
    $("status").textContent = "sign in with a token";
    return;
  }
  const response = await fetch("api/state", { headers: token ? { authorization: "Bearer " + token } : {}, cache: "no-store" });
  if (response.status === 401 || response.status === 403) {
    $("login").hidden = false;
    $("status").textContent = response.status === 401 ? "sign in with a token" : "this token lacks the console scope";
    return;
  }
  if (!response.ok) { $("status").textContent = "error " + response.status; return; }
  const state = await response.json();
  $("login").hidden = true;
  $("status").textContent = "updated " + new Date().toLocaleTimeString();
  rows("backends", state.backends, (b) => [b.name, b.healthy ? "healthy" : "down", b.tools, b.error || ""]);
  rows("calls", state.calls.slice().reverse(), (c) => [c.ts, c.tool, c.backend, c.caller, c.outcome, c.duration_ms]);
  $("approvals").textContent = String(state.approvalsPending);
  $("reload").textContent = state.lastReload ? state.lastReload.ts + " " + (state.lastReload.ok ? "applied" : "rejected") + ": " + state.lastReload.detail : "none";
};
document.addEventListener("DOMContentLoaded", () => {
  $("use").addEventListener("click", () => { sessionStorage.setItem("toolplane-token", $("token").value); $("token").value = ""; load(); });
  load();
  setInterval(load, 2000);
});
`

const STYLE = `body { font: 14px system-ui, sans-serif; margin: 1.5rem; color: #222; }
header { display: flex; gap: 1rem; align-items: baseline; }
h1 { font-size: 1.3rem; margin: 0; } h2 { font-size: 1.05rem; margin: 1.2rem 0 0.4rem; }
#status { color: #666; }
table { border-collapse: collapse; } th, td { text-align: left; padding: 0.2rem 0.8rem 0.2rem 0; border-bottom: 1px solid #ddd; }
`

const ASSETS: Readonly<Record<string, { readonly type: string; readonly body: string }>> = {
  "": { type: "text/html; charset=utf-8", body: PAGE },
  "console.js": { type: "text/javascript; charset=utf-8", body: SCRIPT },
  "favicon.svg": {
    type: "image/svg+xml",
    body: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#345"/></svg>',
  },
  "console.css": { type: "text/css; charset=utf-8", body: STYLE },
}

const send = (
  res: ServerResponse,
  status: number,
  type: string,
  body: string,
  extra: Record<string, string> = {},
) =>
  res
    .writeHead(status, {
      "content-type": type,
      "content-security-policy": CSP,
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "cache-control": "no-store",
      ...extra,
    })
    .end(body)

/**
 * Answers `/console/…` on the gateway's HTTP server before the MCP handler sees the request.
 *
 * @since 0.3.0
 */
export const mountConsole = (
  server: Server,
  options: {
    readonly auth: McpHttpAuth | undefined
    /** Scope a token needs to read the console's data (with auth). */
    readonly scope: string
    readonly state: () => Promise<ConsoleState>
  },
): void => {
  const handlers = server.listeners("request") as ((req: IncomingMessage, res: ServerResponse) => void)[]
  server.removeAllListeners("request")
  const api = async (req: IncomingMessage, res: ServerResponse) => {
    if (options.auth) {
      const header = req.headers.authorization
      const result = await options.auth.verify(header?.startsWith("Bearer ") ? header.slice(7) : undefined)
      if ("error" in result)
        return send(res, 401, "application/json", '{"error":"invalid_token"}', {
          "www-authenticate": "Bearer",
        })
      if (!result.scopes.includes(options.scope))
        return send(
          res,
          403,
          "application/json",
          `{"error":"insufficient_scope","scope":${JSON.stringify(options.scope)}}`,
        )
    }
    send(res, 200, "application/json", JSON.stringify(await options.state()))
  }
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "").split("?")[0]!
    if (path !== "/console" && !path.startsWith("/console/")) {
      for (const handler of handlers) handler.call(server, req, res)
      return
    }
    if (req.method !== "GET") return send(res, 405, "text/plain", "read-only\n", { allow: "GET" })
    if (path === "/console") return send(res, 308, "text/plain", "", { location: "/console/" })
    const name = path.slice("/console/".length)
    if (name === "api/auth")
      return send(res, 200, "application/json", JSON.stringify({ required: options.auth !== undefined }))
    if (name === "api/state") {
      api(req, res).catch(() => send(res, 500, "text/plain", "console state failed\n"))
      return
    }
    const asset = ASSETS[name]
    if (asset === undefined) return send(res, 404, "text/plain", "not found\n")
    send(res, 200, asset.type, asset.body)
  })
}
