/**
 * The operator log of `toolplane serve` (a real subprocess, `--log-format json`): a backend server
 * process killed with SIGKILL is logged lost, reconnecting (attempt, delay) and back; a configuration
 * change is logged applied, an invalid one rejected with its located reason. The text format and the
 * level filter are checked on the logger itself.
 */
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { createLogger } from "../src/ops/logger.js"
import { opsGatewaySuite } from "./helpers/opsGateway.js"
import { connectHttp, FIXTURES, textOf } from "./helpers/processes.js"

describe("operator log lines", () => {
  it("writes readable text by default, JSON lines on request, and drops lines below the level", () => {
    const text: string[] = []
    const log = createLogger({ write: (l) => text.push(l), level: "info" })
    log.debug("hidden", { x: 1 })
    log.warn("backend.lost", { backend: "docs", error: "read EPIPE" })
    log.info("gateway.start", { tools: 3, msg: "serving 3 tools" })
    expect(text).toEqual([
      'toolplane: warning: backend.lost backend=docs error="read EPIPE"\n',
      "toolplane: serving 3 tools\n",
    ])

    const json: string[] = []
    const jlog = createLogger({
      format: "json",
      level: "warn",
      write: (l) => json.push(l),
      now: () => new Date("2026-01-02T03:04:05.000Z"),
    })
    jlog.info("dropped")
    jlog.error("auth.failed", { reason: "invalid_token", cause: new Error("bad signature") })
    expect(json.map((l) => JSON.parse(l))).toEqual([
      {
        time: "2026-01-02T03:04:05.000Z",
        level: "error",
        event: "auth.failed",
        reason: "invalid_token",
        cause: "bad signature",
      },
    ])
  })
})

describe("toolplane serve operator log (subprocess)", () => {
  const suite = opsGatewaySuite("toolplane-oplog-")

  it("logs a killed backend lost, reconnecting and back, and reloads applied and rejected", async () => {
    const dir = suite.dir()
    const pidFile = join(dir, "pids")
    const file = suite.file()
    const pinger = [
      "[[backends]]",
      'name = "pinger"',
      `mcp = { command = ${JSON.stringify(process.execPath)}, args = [${JSON.stringify(join(FIXTURES, "pidServer.mjs"))}], env = { PID_FILE = ${JSON.stringify(pidFile)} } }`,
      "require_approval = false",
      "",
    ]
    const local = [
      "[[backends]]",
      'name = "local"',
      `module = ${JSON.stringify(join(FIXTURES, "tools.ts"))}`,
      "",
    ]
    const gateway = await suite.start(pinger)
    const connected = gateway.lines().find((l) => l.event === "backend.connected")
    expect(connected).toMatchObject({ level: "info", backend: "pinger", tools: 1 })
    expect(gateway.lines().find((l) => l.event === "gateway.start")).toMatchObject({
      transport: "http",
      tools: 1,
    })

    const { client, close } = await connectHttp(gateway.url)
    try {
      expect(textOf(await client.callTool({ name: "pinger.ping", arguments: {} }))).toMatch(/^pong from \d+$/)
      // No line per successful call without --log-calls.
      expect(gateway.lines().filter((l) => l.event === "call")).toEqual([])

      const pid = Number(readFileSync(pidFile, "utf8").trim().split("\n")[0])
      process.kill(pid, "SIGKILL")
      const lost = await gateway.waitFor((l) => l.event === "backend.lost", "backend.lost")
      expect(lost).toMatchObject({ level: "warn", backend: "pinger" })
      const reconnecting = await gateway.waitFor(
        (l) => l.event === "backend.reconnecting",
        "backend.reconnecting",
      )
      expect(reconnecting).toMatchObject({ backend: "pinger", attempt: expect.any(Number) })
      expect(reconnecting.delay_ms).toEqual(expect.any(Number))
      const back = await gateway.waitFor((l) => l.event === "backend.back", "backend.back")
      expect(back).toMatchObject({ level: "info", backend: "pinger", tools: 1 })
      // Each event once for one loss.
      expect(gateway.lines().filter((l) => l.event === "backend.lost")).toHaveLength(1)
      expect(gateway.lines().filter((l) => l.event === "backend.back")).toHaveLength(1)
      const after = Number(readFileSync(pidFile, "utf8").trim().split("\n").at(-1))
      expect(after).not.toBe(pid)
      expect(textOf(await client.callTool({ name: "pinger.ping", arguments: {} }))).toBe(`pong from ${after}`)

      const mark = gateway.lines().length
      writeFileSync(file, [...pinger, ...local].join("\n"))
      const applied = await gateway.waitFor(
        (l) => l.event === "config.reloaded",
        "config.reloaded",
        20_000,
        mark,
      )
      expect(applied).toMatchObject({ level: "info", trigger: "file changed", added: ["local"], removed: [] })
      expect(applied.tools).toBeGreaterThan(1)

      writeFileSync(file, [...pinger, "[[backends]]", "name = 5", ""].join("\n"))
      const rejected = await gateway.waitFor(
        (l) => l.event === "config.reload_rejected",
        "config.reload_rejected",
      )
      expect(rejected.level).toBe("error")
      expect(String(rejected.error)).toMatch(
        /configuration error: .*toolplane\.toml:line \d+: backends\[1\]\.name/,
      )
      // Still serving the previous configuration.
      expect(textOf(await client.callTool({ name: "notes.echo", arguments: { message: "ok" } }))).toBe(
        "notes echo: ok",
      )
    } finally {
      await close()
    }
    await gateway.stop()
    expect(gateway.lines().find((l) => l.event === "gateway.shutdown")).toMatchObject({ reason: "SIGTERM" })
  }, 60_000)
})
