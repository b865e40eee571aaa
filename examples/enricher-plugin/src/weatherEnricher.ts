/**
 * An enricher for tools of the `weather` category, of the kind a weather-API vendor would publish next to
 * its tools:
 *
 * - **schema enrichment**: the `apiKey` parameter disappears from the listed schema (the model never sees
 *   or supplies it), and `units` gets its default and also accepts `"C"` and `"F"`;
 * - **argument transformation**: the key is injected, `city` is trimmed and its spaces collapsed, and
 *   `units` accepts `"C"`/`"F"` as aliases of `"metric"`/`"imperial"`;
 * - **value model**: each tool's relative cost, its rate-limit host and its follow-ups;
 * - **follow-up links**: a search's matches project into `weather/current` calls, one per matched city.
 *
 * @since 0.1.0
 */
import { defineEnricher, type Enricher, type FollowUpLink, type JsonValue } from "@toolplane/foundation"

/**
 * Options of {@link weatherEnricher}.
 *
 * @since 0.1.0
 */
export interface WeatherEnricherOptions {
  /** The key the weather API wants; injected into every call, never listed. */
  readonly apiKey: string
  /** The API's host, for per-host rate limiting. Default `api.weather.example`. */
  readonly host?: string
  /** Units when a call gives none. Default `"metric"`. */
  readonly defaultUnits?: "metric" | "imperial"
  /** At most this many follow-up calls from one search. Default 3. */
  readonly maxFollowUps?: number
}

/** Relative cost of each tool (1 = a typical call). */
const COST: Readonly<Record<string, number>> = {
  "weather/search": 1,
  "weather/current": 1,
  "weather/forecast": 3,
}

/** The follow-ups of each tool: a search leads to the current weather of what it matched. */
const FOLLOW_UPS: Readonly<Record<string, readonly FollowUpLink[]>> = {
  "weather/search": [{ toolId: "weather/current", projection: "/matches", projectionArg: "city" }],
}

const UNIT_ALIASES: Readonly<Record<string, "metric" | "imperial">> = {
  c: "metric",
  metric: "metric",
  f: "imperial",
  imperial: "imperial",
}

/** Resolves a JSON pointer (RFC 6901) in a value, or `undefined` when it leads nowhere. */
const at = (value: JsonValue, pointer: string): JsonValue | undefined => {
  if (pointer === "") return value
  let current: JsonValue | undefined = value
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~")
    if (typeof current !== "object" || current === null) return undefined
    current = Array.isArray(current)
      ? (current as readonly JsonValue[])[Number(key)]
      : (current as { readonly [k: string]: JsonValue })[key]
  }
  return current
}

/**
 * Makes the weather enricher.
 *
 * @example
 * ```ts
 * import { createRunner } from "@toolplane/exec"
 * import { localBackend } from "@toolplane/plugin-local"
 *
 * const runner = createRunner({
 *   backends: [localBackend([weather])],
 *   enrichers: [weatherEnricher({ apiKey: process.env.WEATHER_API_KEY ?? "" })],
 * })
 * ```
 * @since 0.1.0
 */
export const weatherEnricher = (options: WeatherEnricherOptions): Enricher => {
  if (options.apiKey === "") throw new TypeError("weatherEnricher: apiKey must not be empty")
  const host = options.host ?? "api.weather.example"
  const defaultUnits = options.defaultUnits ?? "metric"
  const maxFollowUps = options.maxFollowUps ?? 3
  return defineEnricher({
    name: "weather",
    categories: ["weather"],
    enrichSchema: (tool) => {
      const { apiKey: _hidden, ...properties } = tool.inputSchema.properties ?? {}
      const units = properties.units
      return {
        ...tool,
        inputSchema: {
          ...tool.inputSchema,
          properties:
            typeof units === "object" && units !== null
              ? {
                  ...properties,
                  units: {
                    ...units,
                    ...(Array.isArray(units.enum) ? { enum: [...units.enum, "C", "F"] } : {}),
                    default: defaultUnits,
                  },
                }
              : properties,
          ...(Array.isArray(tool.inputSchema.required)
            ? { required: tool.inputSchema.required.filter((r) => r !== "apiKey") }
            : {}),
        },
      }
    },
    transformArgs: (_toolId, args) => {
      const out: Record<string, unknown> = { ...args, apiKey: options.apiKey }
      if (typeof args.city === "string") out.city = args.city.trim().replace(/\s+/g, " ")
      if ("units" in args || "units" in out) {
        const units = typeof args.units === "string" ? UNIT_ALIASES[args.units.toLowerCase()] : undefined
        out.units = units ?? defaultUnits
      }
      return out
    },
    valueModel: (toolId) =>
      toolId in COST
        ? {
            cost: COST[toolId]!,
            rateLimitHost: host,
            ...(FOLLOW_UPS[toolId] ? { followUps: FOLLOW_UPS[toolId] } : {}),
          }
        : undefined,
    projectArgs: (prevToolId, prevResult, link) => {
      if (!(FOLLOW_UPS[prevToolId] ?? []).some((l) => l.toolId === link.toolId)) return undefined
      const selected = link.projection === undefined ? prevResult : at(prevResult, link.projection)
      if (!Array.isArray(selected)) return undefined
      const arg = link.projectionArg ?? "city"
      return selected
        .map((item) => (typeof item === "object" && item !== null && !Array.isArray(item) ? item.name : item))
        .filter((name): name is string => typeof name === "string" && name !== "")
        .slice(0, maxFollowUps)
        .map((name) => ({ [arg]: name }))
    },
    rateLimitHost: (toolId) => (toolId.startsWith("weather/") ? host : undefined),
  })
}
