/**
 * The per-caller task-support cache behind `tools/call` of the tasks extension: a stateless call from a
 * client without the extension is decided from the cached listing synchronously (no lookup, no await),
 * and the decision is the one the asynchronous lookup gives: a `required` tool still goes through it
 * (to be refused), as does any tool whose support is not known yet.
 */
import { describe, expect, it } from "vitest"
import { TASKS_EXTENSION, TaskHost, TaskSupport } from "../src/server/modern/tasks.js"

const TOOLS = [
  { name: "needs", execution: { taskSupport: "required" } },
  { name: "may", execution: { taskSupport: "optional" } },
  { name: "never", execution: { taskSupport: "forbidden" } },
  { name: "plain" },
]

const counting = () => {
  const calls = { n: 0 }
  const list = async () => {
    calls.n++
    return { tools: TOOLS }
  }
  return { calls, list }
}

describe("TaskSupport.cached", () => {
  it("knows nothing before a lookup, then answers from the listing it read, per caller", async () => {
    const support = new TaskSupport()
    const { calls, list } = counting()
    expect(support.cached("needs", "alice")).toBeUndefined()
    expect(await support.of("needs", "alice", list, {})).toBe("required")
    expect(support.cached("needs", "alice")).toBe("required")
    expect(support.cached("may", "alice")).toBe("optional")
    expect(support.cached("never", "alice")).toBe("none")
    expect(support.cached("plain", "alice")).toBe("none")
    expect(support.cached("unlisted", "alice")).toBe("none")
    // another caller has its own listing (a tool hidden from it is not looked up)
    expect(support.cached("needs", "bob")).toBeUndefined()
    expect(calls.n).toBe(1)
    support.clear()
    expect(support.cached("needs", "alice")).toBeUndefined()
  })

  it("stays unknown while the listing is in flight, and after it failed", async () => {
    const support = new TaskSupport()
    let release: (() => void) | undefined
    const slow = () =>
      new Promise<Record<string, unknown>>((resolve) => {
        release = () => resolve({ tools: TOOLS })
      })
    const pending = support.of("may", "alice", slow, {})
    expect(support.cached("may", "alice")).toBeUndefined()
    release!()
    expect(await pending).toBe("optional")
    expect(support.cached("may", "alice")).toBe("optional")

    const failing = new TaskSupport()
    expect(
      await failing.of("may", "alice", () => Promise.reject(new Error("listing failed")), {}),
    ).toBeUndefined()
    expect(failing.cached("may", "alice")).toBeUndefined()
  })
})

describe("TaskHost.runsWithoutTask", () => {
  it("skips the lookup only for a client without the extension and a tool known not to require a task", async () => {
    const host = new TaskHost("secret-0123456789abcdef")
    const { list } = counting()
    const without = { elicitation: {} }
    const declared = { extensions: { [TASKS_EXTENSION]: {} } }
    // unknown support: the lookup decides (it fills the cache)
    expect(host.runsWithoutTask("may", "alice", without)).toBe(false)
    await host.support.of("may", "alice", list, {})
    expect(host.runsWithoutTask("may", "alice", without)).toBe(true)
    expect(host.runsWithoutTask("plain", "alice", without)).toBe(true)
    // a required tool is refused by the lookup's path, never skipped
    expect(host.runsWithoutTask("needs", "alice", without)).toBe(false)
    // a client with the extension may get a task
    expect(host.runsWithoutTask("may", "alice", declared)).toBe(false)
    expect(host.runsWithoutTask("plain", "bob", without)).toBe(false)
  })
})
