/**
 * Helpers shared by the commands: opening the configured gateway with progress on stderr.
 *
 * @since 0.1.0
 */
import { dirname } from "node:path"
import { BackendUnavailable } from "@toolplane/foundation"
import { type CliIO, type CommandContext, UsageError } from "../command.js"
import type { Gateway, GatewayEvent, OpenGatewayOptions } from "../gateway.js"
import { pinDecisionText } from "../pinStore.js"
import { openVia } from "./via.js"

/**
 * Prints gateway start-up progress to stderr.
 *
 * @since 0.1.0
 */
export const progressPrinter =
  (io: CliIO) =>
  (event: GatewayEvent): void => {
    switch (event.type) {
      case "connecting":
        io.stderr(`toolplane: connecting ${event.backend}…\n`)
        break
      case "connected":
        io.stderr(`toolplane: ${event.backend} ready (${event.tools} tools, ${event.ms} ms)\n`)
        break
      case "failed":
        io.stderr(`toolplane: ${event.backend} failed after ${event.ms} ms: ${event.error}\n`)
        break
      case "warning":
        io.stderr(`toolplane: warning: ${event.message}\n`)
        break
      case "pin":
        io.stderr(`toolplane: ${pinDecisionText(event.decision)}\n`)
    }
  }

/**
 * Opens the gateway of the command's config, printing connection progress to stderr.
 *
 * @since 0.1.0
 */
export const open = async (
  ctx: CommandContext,
  options: Partial<OpenGatewayOptions> = {},
): Promise<Gateway> =>
  // Loaded when a command opens a gateway, so `--help`, `--version` and `--via` do not load every backend kind.
  (await import("../gateway.js")).openGateway(ctx.config, {
    file: ctx.file,
    baseDir: dirname(ctx.file),
    env: ctx.io.env,
    onEvent: progressPrinter(ctx.io),
    warnRandomCursorKey: false,
    ...(ctx.config.limits.connect_timeout_ms !== undefined
      ? { connectTimeoutMs: ctx.config.limits.connect_timeout_ms }
      : {}),
    ...(ctx.config.limits.reconnect_max_delay_ms !== undefined
      ? { reconnectDelayMs: { max: ctx.config.limits.reconnect_max_delay_ms } }
      : {}),
    ...options,
  })

/**
 * Runs `body` with an open gateway and closes it afterwards, whatever happens. An MCP backend that
 * cannot connect does not stop the command: it is reported on stderr and left out (like `serve` does),
 * and `body` gets the names of the backends that are down with the reason for each. With `--via URL` the
 * body gets a running gateway's tools instead (only `gateway.service` is set).
 *
 * @since 0.1.0
 */
export const withGateway = async <A>(
  ctx: CommandContext,
  body: (gateway: Gateway, down: ReadonlyMap<string, string>) => Promise<A>,
): Promise<A> => {
  const values = ctx.invocation.values as { via?: string; "token-env"?: string }
  if (values["token-env"] !== undefined && values.via === undefined)
    throw new UsageError("--token-env goes with --via URL (the running gateway's bearer token)")
  if (values.via !== undefined) {
    const remote = await openVia(ctx)
    try {
      return await body({ service: remote.service } as Gateway, new Map())
    } finally {
      await remote.close()
    }
  }
  const down = new Map<string, string>()
  const print = progressPrinter(ctx.io)
  const gateway = await open(ctx, {
    reconnect: true,
    onEvent: (event) => {
      if (event.type === "failed") {
        const reason =
          event.cause instanceof BackendUnavailable
            ? event.cause.reason
            : ((event.cause as Error | undefined)?.message ?? event.error)
        down.set(event.backend, reason)
        print({ ...event, error: reason })
      } else print(event)
    },
  })
  try {
    if (down.size > 0)
      ctx.io.stderr(
        `toolplane: warning: ${[...down.keys()].join(", ")} ${down.size === 1 ? "is" : "are"} down; showing the other backends' tools only\n`,
      )
    return await body(gateway, down)
  } finally {
    await gateway.close()
  }
}
