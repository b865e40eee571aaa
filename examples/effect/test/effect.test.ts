import { describe, expect, it } from "vitest"
import { main } from "../src/main.js"

describe("examples/effect", () => {
  it("assembles the program from Layers, handles typed failures and drops the MCP backend with its scope", async () => {
    const report = await main()
    expect(report.greeting).toBe("Hello, Ada!")
    expect(report.invalid).toMatch(/^Invalid arguments for "local\/greet": at \/name/)
    expect(report.withEverything.tools).toBeGreaterThan(5)
    expect(report.withEverything.echo).toContain("hi")
    expect(report.withEverything.sum).toContain("5")
    expect(report.withEverything.denied).toMatch(/^Call to "everything\/get-env" was denied/)
    expect(report.afterScope.tools).toEqual(["local/greet"])
    expect(report.afterScope.echo).toMatch(/^Unknown tool "everything\/echo"/)
  }, 60_000)
})
