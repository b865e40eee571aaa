/**
 * `[search] learn_from_use` through the real gateway: the official MCP SDK client against `toolplane serve`
 * (a subprocess, stdio) in search mode. A search_tools query followed by a call_tool of one of its hits
 * is persisted in the configured file, and a new gateway process ranks that tool first for the query.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ConfigError } from "@toolplane/foundation"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseConfig } from "../src/config/load.js"
import { type Connected, connectStdio, FIXTURES } from "./helpers/processes.js"

const QUERY = "bulk demo tool"
const TARGET = "bulk/tool_4"

let dir: string
let config: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolplane-learn-"))
  config = join(dir, "toolplane.toml")
  await writeFile(
    config,
    [
      'tool_exposure = "search"',
      "[search]",
      'learn_from_use = { file = "state/learned.json", max_per_tool = 2 }',
      "[[backends]]",
      'name = "local"',
      `module = ${JSON.stringify(join(FIXTURES, "e2eTools.ts"))}`,
      "",
    ].join("\n"),
  )
})

afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

const search = async (gateway: Connected, query: string): Promise<string[]> => {
  const found = await gateway.client.callTool({ name: "toolplane.search_tools", arguments: { query } })
  expect(found.isError).toBeFalsy()
  return (found.structuredContent as { hits: { id: string }[] }).hits.map((h) => h.id)
}

describe("[search] learn_from_use", () => {
  it("persists a search followed by a call and ranks the called tool first in a new process", async () => {
    const first = await connectStdio(config)
    let before: string[]
    try {
      before = await search(first, QUERY)
      // zero-shot, the six bulk tools tie and come by id: the target is a hit, but not the first
      expect(before).toContain(TARGET)
      expect(before[0]).not.toBe(TARGET)
      const called = await first.client.callTool({
        name: "toolplane.call_tool",
        arguments: { id: TARGET, arguments: {} },
      })
      expect(called.isError).toBeFalsy()
      // a failed call teaches nothing
      await search(first, "divide numbers")
      const failed = await first.client.callTool({
        name: "toolplane.call_tool",
        arguments: { id: "math/divide", arguments: { a: 1, b: 0 } },
      })
      expect(failed.isError).toBe(true)
      // the same process already ranks it first
      expect((await search(first, QUERY))[0]).toBe(TARGET)
    } finally {
      await first.close()
    }
    const stored = JSON.parse(await readFile(join(dir, "state", "learned.json"), "utf8")) as Record<
      string,
      string[]
    >
    expect(stored).toEqual({ [TARGET]: [QUERY] })

    const second = await connectStdio(config)
    try {
      const after = await search(second, QUERY)
      expect(after[0]).toBe(TARGET)
      expect(after.indexOf(TARGET)).toBeLessThan(before.indexOf(TARGET))
    } finally {
      await second.close()
    }
  }, 60_000)

  it("is a config error outside search mode, and validates its keys", () => {
    const base = '[[backends]]\nname = "x"\nmodule = "./m.js"\n'
    expect(() => parseConfig(`[search]\nlearn_from_use = { file = "l.json" }\n${base}`)).toThrow(
      /search\.learn_from_use.*tool_exposure = "search"/s,
    )
    expect(() =>
      parseConfig(
        `tool_exposure = "search"\n[search]\nlearn_from_use = { file = "l.json", max_per_tool = 0 }\n${base}`,
      ),
    ).toThrow(ConfigError)
    const ok = parseConfig(
      `tool_exposure = "search"\n[search]\nlearn_from_use = { file = "l.json" }\n${base}`,
    )
    expect(ok.search.learn_from_use).toEqual({
      file: "l.json",
      max_per_tool: 20,
      window_ms: 600_000,
      max_query_length: 500,
    })
    expect(parseConfig(base).search.learn_from_use).toBeUndefined()
  })
})
