import { expect, it } from "vitest"
import { main } from "../examples/agent.js"

it("runs the README example (offline, against the scripted stand-in)", async () => {
  const saved = process.env.ANTHROPIC_API_KEY
  delete process.env.ANTHROPIC_API_KEY
  const lines: string[] = []
  try {
    await main((...values) =>
      lines.push(values.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join(" ")),
    )
  } finally {
    if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved
  }
  expect(lines).toEqual([
    'tools: ["weather__current","math__add"]',
    'weather__current -> [{"type":"text","text":"{\\"city\\":\\"Oslo\\",\\"tempC\\":4}"}]',
    'math__add -> [{"type":"text","text":"5"}]',
    'completed Tools said: {"city":"Oslo","tempC":4} and 5',
  ])
})
