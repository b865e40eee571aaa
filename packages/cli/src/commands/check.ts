/**
 * `toolplane check`: validates the configuration, connects every backend and reports each one's health
 * and tool count. Exit 1 when any backend is down.
 *
 * @since 0.1.0
 */
import { ConfigError } from "@toolplane/foundation"
import { defineCommand, EXIT } from "../command.js"
import type { GatewayEvent } from "../gateway.js"
import { json, table } from "../output.js"
import { open, progressPrinter } from "./shared.js"

/** @since 0.1.0 */
export const checkCommand = defineCommand({
  name: "check",
  summary: "validate the config, connect every backend, report health [--json]",
  maxPositionals: 0,
  flags: { json: "boolean" },
  flagHelp: { json: "print { ok, config, backends } (or the configuration errors) as JSON" },
  examples: ["check", "check --json -c ./gateway.toml"],
  run: async (ctx) => {
    const failed = new Map<string, string>()
    let configProblem = false
    const print = progressPrinter(ctx.io)
    const gateway = await open(ctx, {
      requireAllBackends: false,
      onEvent: (event: GatewayEvent) => {
        if (event.type === "failed") {
          failed.set(event.backend, event.error)
          if (event.cause instanceof ConfigError) configProblem = true
        }
        print(event)
      },
    })
    try {
      const health = await gateway.health()
      const rows = ctx.config.backends.map((b) => {
        const h = health[b.name]
        const error = failed.get(b.name) ?? h?.error
        return {
          backend: b.name,
          kind: b.module !== undefined ? "module" : b.mcp && "command" in b.mcp ? "mcp-stdio" : "mcp-http",
          healthy: failed.has(b.name) ? false : (h?.healthy ?? false),
          tools: h?.tools ?? 0,
          ...(error !== undefined ? { error } : {}),
        }
      })
      const ok = rows.every((r) => r.healthy)
      if (ctx.invocation.values.json) ctx.io.stdout(json({ ok, config: ctx.file, backends: rows }))
      else
        ctx.io.stdout(
          `${table(
            ["BACKEND", "KIND", "HEALTH", "TOOLS", "ERROR"],
            rows.map((r) => [r.backend, r.kind, r.healthy ? "ok" : "DOWN", String(r.tools), r.error ?? ""]),
            100,
          )}\n\n${ok ? "all backends healthy" : "some backends are down"}\n`,
        )
      return configProblem ? EXIT.usage : ok ? EXIT.ok : EXIT.toolError
    } finally {
      await gateway.close()
    }
  },
})
