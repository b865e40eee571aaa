import { expect, it } from "vitest"
import { main } from "../examples/quickstart.js"

it("runs the README example", async () => {
  const lines: string[] = []
  await main((...values) =>
    lines.push(values.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join(" ")),
  )
  expect(lines).toEqual([
    'weather/current -> {"city":"Oslo","tempC":21}',
    "ops/deploy without an approver -> ApprovalRequired",
    "progress: deployed api",
    'ops/deploy with an allow-list -> [{"type":"text","text":"deployed api"}]',
    'tools: ["ops/deploy","weather/current"]',
  ])
})
