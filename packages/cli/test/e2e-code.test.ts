/**
 * End to end in code mode: the official MCP SDK client calls `execute_code` on `toolplane serve`
 * (`tool_exposure = "code"`, a real subprocess over stdio); the program calls a local tool and a tool of
 * server-everything (an MCP server spawned by the gateway), and a tool error comes back catchable.
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
})
