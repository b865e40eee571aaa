/**
 * `toolplane lock`: connects every pinned backend (MCP servers by default, modules with `pin` set),
 * pins the tools of backends the lock file does not know yet, and shows every tool whose definition
 * differs from its pin (with what changed), every tool new since and every pinned tool gone. With
 * `--accept` the differences (of every backend, one backend, or one tool) become the pins. Exit 1 while a
 * difference is pending or a backend is down, so CI can run it as a check.
 *
 * @since 0.1.0
 */
import { dirname } from "node:path"
import type { JsonValue } from "@toolplane/foundation"
import { defineCommand, EXIT, UsageError } from "../command.js"
import type { BackendConfig, GatewayConfig } from "../config/schema.js"
import type { GatewayEvent } from "../gateway.js"
import { lockFilePath } from "../lockFile.js"
import { json, table } from "../output.js"
import { backendPinPolicy } from "../pinBackend.js"
import { type PinToolStatus, pinStore } from "../pinStore.js"
import { open, progressPrinter } from "./shared.js"

const shown = (value: JsonValue | undefined): string => {
  if (value === undefined) return "(absent)"
  const text = JSON.stringify(value)
  return text.length > 160 ? `${text.slice(0, 159)}…` : text
}

/** @since 0.1.0 */
export const lockCommand = defineCommand({
  name: "lock",
  synopsis: "[BACKEND|TOOL_ID]",
  summary:
    "pin tool definitions in the lock file and show what changed since [--json]\n--accept: make the current definitions (all, a backend's, one tool's) the pins",
  maxPositionals: 1,
  flags: { accept: "boolean", json: "boolean" },
  run: async (ctx) => {
    const selector = ctx.invocation.positionals[0]
    const pinned = ctx.config.backends.filter((b) => backendPinPolicy(b) !== "off")
    const named = selector === undefined ? undefined : ctx.config.backends.find((b) => b.name === selector)
    if (named !== undefined && backendPinPolicy(named) === "off")
      throw new UsageError(`backend "${selector}" is not pinned (pin = "off")`)
    if (selector !== undefined && named === undefined && !selector.includes("/"))
      throw new UsageError(`"${selector}" is neither a configured backend nor a tool id`)
    const scope: BackendConfig[] = named !== undefined ? [named] : pinned
    const file = lockFilePath(ctx.config, dirname(ctx.file), ctx.file)
    if (scope.length === 0) {
      ctx.io.stderr(`toolplane: no backend is pinned (every backend has pin = "off")\n`)
      return EXIT.ok
    }
    // Only the pinned backends, without what is built on top of them (an alias of a held tool would fail).
    const config: GatewayConfig = {
      ...ctx.config,
      backends: scope,
      aliases: {},
      composite_tools: [],
      tool_exposure: "all",
      prefetch: { ...ctx.config.prefetch, enabled: false },
    }
    const pins = pinStore({ record: true })
    const down = new Map<string, string>()
    const print = progressPrinter(ctx.io)
    const gateway = await open(
      { ...ctx, config },
      {
        requireAllBackends: false,
        pins,
        onEvent: (event: GatewayEvent) => {
          if (event.type === "failed") down.set(event.backend, event.error)
          // Differences are this command's report; the rest is progress.
          if (event.type !== "pin" || event.decision.kind === "unwritable") print(event)
        },
      },
    )
    try {
      let toolId: string | undefined
      let targets = scope.filter((b) => !down.has(b.name))
      if (named === undefined && selector !== undefined) {
        const owner = targets.find((b) => pins.status(b.name)?.some((t) => t.id === selector))
        if (owner === undefined)
          throw new UsageError(
            `no pinned backend serves or pins the tool "${selector}"${down.size > 0 ? ` (down: ${[...down.keys()].join(", ")})` : ""}`,
          )
        toolId = selector
        targets = [owner]
      }
      const accepted =
        ctx.invocation.values.accept === true ? targets.flatMap((b) => pins.accept(b.name, toolId)) : []
      await pins.flush()
      const rows = scope.map((b) => {
        const tools = (pins.status(b.name) ?? []).filter((t) => toolId === undefined || t.id === toolId)
        return {
          backend: b.name,
          policy: backendPinPolicy(b),
          ...(down.has(b.name) ? { down: down.get(b.name)! } : {}),
          tools,
        }
      })
      const pending = rows.flatMap((r) => r.tools.filter((t) => t.status !== "pinned"))
      const ok = pending.length === 0 && down.size === 0
      if (ctx.invocation.values.json) {
        ctx.io.stdout(json({ ok, lock: file, accepted, backends: rows }))
        return ok ? EXIT.ok : EXIT.toolError
      }
      const count = (tools: readonly PinToolStatus[], status: PinToolStatus["status"]) =>
        String(tools.filter((t) => t.status === status).length)
      const lines = [
        `lock file: ${file}`,
        "",
        table(
          ["BACKEND", "PIN", "PINNED", "CHANGED", "NEW", "REMOVED", "STATUS"],
          rows.map((r) => [
            r.backend,
            r.policy,
            count(r.tools, "pinned"),
            count(r.tools, "changed"),
            count(r.tools, "new"),
            count(r.tools, "removed"),
            r.down !== undefined ? `DOWN: ${r.down}` : "ok",
          ]),
          100,
        ),
      ]
      for (const tool of pending) {
        lines.push("", `${tool.id}: ${tool.status}${tool.held ? " (held)" : ""}`)
        for (const change of tool.changes)
          lines.push(`  ${change.path}: ${shown(change.before)} → ${shown(change.after)}`)
      }
      lines.push("")
      if (accepted.length > 0) lines.push(`accepted: ${accepted.join(", ")}`)
      lines.push(
        pending.length === 0
          ? "every pinned tool matches the lock file"
          : `${pending.length} difference${pending.length === 1 ? "" : "s"} pending: review, then run toolplane lock --accept [BACKEND|TOOL_ID]`,
      )
      ctx.io.stdout(`${lines.join("\n")}\n`)
      return ok ? EXIT.ok : EXIT.toolError
    } finally {
      await gateway.close()
    }
  },
})
