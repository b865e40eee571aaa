/**
 * Helpers shared by the commands: opening the configured gateway with progress on stderr.
 *
 * @since 0.1.0
 */
import { dirname } from "node:path"
import type { CliIO, CommandContext } from "../command.js"
import { type Gateway, type GatewayEvent, type OpenGatewayOptions, openGateway } from "../gateway.js"
import { pinDecisionText } from "../pinStore.js"

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
export const open = (ctx: CommandContext, options: Partial<OpenGatewayOptions> = {}): Promise<Gateway> =>
  openGateway(ctx.config, {
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
 * Runs `body` with an open gateway and closes it afterwards, whatever happens.
 *
 * @since 0.1.0
 */
export const withGateway = async <A>(
  ctx: CommandContext,
  body: (gateway: Gateway) => Promise<A>,
): Promise<A> => {
  const gateway = await open(ctx)
  try {
    return await body(gateway)
  } finally {
    await gateway.close()
  }
}
