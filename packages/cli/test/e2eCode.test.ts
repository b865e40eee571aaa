/**
 * End to end in code mode: the official MCP SDK client calls `execute_code` on `toolplane serve`
 * (`tool_exposure = "code"`, a real subprocess over stdio); the program calls a local tool and a tool of
 * server-everything (an MCP server spawned by the gateway), and a tool error comes back catchable. The
 * declaration marks exactly the tool whose calls go through the approver.
 */
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Connected, connectStdio, FIXTURES } from "./helpers/processes.js"

describe('toolplane serve with tool_exposure = "code"', () => {
  let gateway: Connected

  beforeAll(async () => {
    gateway = await connectStdio(join(FIXTURES, "e2e-code.toml"))
  }, 60_000)
  afterAll(async () => {
    await gateway?.close()
  })

  it("lists execute_code with the declared toolset instead of the tools", async () => {
    const { tools } = await gateway.client.listTools()
    expect(tools.map((t) => t.name)).toEqual(["toolplane.execute_code"])
    const description = tools[0]!.description ?? ""
    expect(description).toContain("echo(args: { message: string }): Promise<string>")
    expect(description).toContain('"get-sum"(args: { a: number; b: number })')
  })

  it("marks the tool that goes through the approver @needsApproval, and not the read-only ones", async () => {
    const { tools } = await gateway.client.listTools()
    const lines = (tools[0]!.description ?? "").split("\n")
    const declared = (name: string) => {
      const line = lines.find((l) => l.includes(`${name}(args`))
      if (line === undefined) throw new Error(`${name} is not declared:\n${lines.join("\n")}`)
      return line
    }
    // ops/launch: a destructive local tool of a backend with approval = "elicit".
    expect(declared("launch")).toContain("@needsApproval")
    // notes/echo: read-only (local "auto" policy); get-sum: require_approval = false.
    expect(declared("echo")).not.toContain("@needsApproval")
    expect(declared('"get-sum"')).not.toContain("@needsApproval")
    expect(lines.filter((l) => l.includes("@needsApproval") && l.includes("(args"))).toHaveLength(1)
    expect(lines.some((l) => l.startsWith("// A call of a tool marked @needsApproval"))).toBe(true)
  })

  it("runs a program that calls tools on two backends, one an MCP server", async () => {
    const result = await gateway.client.callTool({
      name: "toolplane.execute_code",
      arguments: {
        code: `const sum = await tools.everything["get-sum"]({ a: 2, b: 40 })
               const echoed = await tools.notes.echo({ message: "hi" })
               let code
               try { await tools.math.divide({ a: 1, b: "x" }) } catch (e) { code = e.code }
               console.log("done")
               return { sum, echoed, code }`,
      },
    })
    expect(result.isError).toBeFalsy()
    const structured = result.structuredContent as {
      result: { sum: unknown; echoed: string; code: string }
      logs: string[]
    }
    expect(String(structured.result.sum)).toContain("42")
    expect(structured.result.echoed).toBe("notes echo: hi")
    expect(structured.result.code).toBe("INVALID_ARGUMENTS")
    expect(structured.logs).toEqual(["done"])
  })

  it("answers a failing program with its typed error and keeps serving", async () => {
    const failed = await gateway.client.callTool({
      name: "toolplane.execute_code",
      arguments: { code: "console.log('about to fail'); null.boom" },
    })
    expect(failed.isError).toBe(true)
    const text = (failed.content as { type: string; text: string }[]).map((c) => c.text).join("\n")
    expect(text).toContain("TypeError")
    expect(text).toContain("about to fail")
    const again = await gateway.client.callTool({
      name: "toolplane.execute_code",
      arguments: { code: "return (await tools.notes.echo({ message: 'still here' }))" },
    })
    expect((again.structuredContent as { result: string }).result).toBe("notes echo: still here")
  })

  it("fires each limit with its typed error while other calls keep being served", async () => {
    const run = (code: string) =>
      gateway.client.callTool({ name: "toolplane.execute_code", arguments: { code } }, undefined, {
        timeout: 40_000,
      })
    const errorOf = (result: Awaited<ReturnType<typeof run>>) =>
      (result._meta as Record<string, { _tag?: string; limit?: string }> | undefined)?.["toolplane.dev/error"]
    const hostile = Promise.all([
      run("for (;;) {}"),
      run("const keep = []; for (;;) keep.push(new Uint8Array(1 << 20))"),
      run("for (let i = 0; i < 30; i++) await tools.notes.echo({ message: String(i) })"),
      run("return 'x'.repeat(200000)"),
    ])
    const served: string[] = []
    for (let i = 0; i < 5; i++) {
      const direct = await gateway.client.callTool({ name: "notes.echo", arguments: { message: `d${i}` } })
      served.push((direct.content as { text: string }[])[0]!.text)
    }
    const [timeout, memory, calls, output] = await hostile
    expect(served).toEqual(["d0", "d1", "d2", "d3", "d4"].map((m) => `notes echo: ${m}`))
    for (const r of [timeout, memory, calls, output]) expect(r.isError).toBe(true)
    expect(errorOf(timeout)?._tag).toBe("SandboxTimeout")
    expect(errorOf(memory)?._tag).toBe("SandboxMemory")
    expect(errorOf(calls)).toMatchObject({ _tag: "SandboxLimit", limit: "calls" })
    expect(errorOf(output)).toMatchObject({ _tag: "SandboxLimit", limit: "output" })
    const after = await run("return await tools.notes.echo({ message: 'after' })")
    expect((after.structuredContent as { result: string }).result).toBe("notes echo: after")
  }, 60_000)
})
