import { ConfigError } from "@toolplane/foundation"
import { describe, expect, it } from "vitest"
import { parseConfig } from "../src/config/load.js"
import { prefetchOptions } from "../src/gateway.js"

const base = `
[[backends]]
name = "local"
module = "./tools.ts"
`

describe("[prefetch] config", () => {
  it("is off by default", () => {
    expect(parseConfig(base).prefetch).toEqual({ enabled: false, declared: true, learning: true })
  })

  it("parses every option", () => {
    const config = parseConfig(`${base}
[prefetch]
enabled = true
declared = false
learning = true
min_confidence = 0.3
min_precision = 0.5
max_parallel = 8
per_host = 3
max_per_call = 2
ttl_ms = 2000
precision_budget = { floor = 0.3, target = 0.6 }
`)
    expect(config.prefetch).toEqual({
      enabled: true,
      declared: false,
      learning: true,
      min_confidence: 0.3,
      min_precision: 0.5,
      max_parallel: 8,
      per_host: 3,
      max_per_call: 2,
      ttl_ms: 2000,
      precision_budget: { floor: 0.3, target: 0.6 },
    })
    expect(prefetchOptions(config, false)).toMatchObject({
      minPrecision: 0.5,
      ttlMs: 2000,
      precisionBudget: { floor: 0.3, target: 0.6 },
    })
  })

  it("turns the precision budget off, and leaves the runner's default when it is not given", () => {
    const off = parseConfig(`${base}\n[prefetch]\nenabled = true\nprecision_budget = false\n`)
    expect(prefetchOptions(off, false)?.precisionBudget).toBe(false)
    const unset = parseConfig(`${base}\n[prefetch]\nenabled = true\n`)
    expect(prefetchOptions(unset, false)).not.toHaveProperty("precisionBudget")
    let error: unknown
    try {
      parseConfig(`${base}\n[prefetch]\nenabled = true\nprecision_budget = { floor = 2 }\n`, "gw.toml")
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).path).toBe("prefetch.precision_budget.floor")
  })

  it("names the line of a wrong value and rejects unknown keys", () => {
    let error: unknown
    try {
      parseConfig(`${base}\n[prefetch]\nenabled = true\nmin_confidence = 3\n`, "gw.toml")
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).path).toBe("prefetch.min_confidence")
    expect(() => parseConfig(`${base}\n[prefetch]\nenable = true\n`)).toThrow(/enable/)
  })
})
