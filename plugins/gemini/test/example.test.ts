import { expect, it } from "vitest"
import { main } from "../examples/agent.js"

it("runs the README example (offline, against the scripted stand-in)", async () => {
  const saved = process.env.GEMINI_API_KEY
  delete process.env.GEMINI_API_KEY
  const lines: string[] = []
  try {
    await main((...values) =>
      lines.push(values.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join(" ")),
    )
  } finally {
    if (saved !== undefined) process.env.GEMINI_API_KEY = saved
  }
  expect(lines).toEqual([
    'warning weather/current/inputSchema/properties/unit-system: property "unit-system" was renamed "unit_system" (Gemini property names allow only [a-zA-Z0-9_]); renamed back before the call',
    'weather__current({"city":"Oslo","unit-system":"metric"}) -> {"output":{"city":"Oslo","tempC":4}}',
    'math__add({"a":2,"b":3}) -> {"output":"5"}',
    'completed Functions said: {"city":"Oslo","tempC":4} and "5"',
  ])
})
