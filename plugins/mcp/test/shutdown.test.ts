import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { describe, expect, it } from "vitest"
import { serveHttp } from "../src/index.js"
import { demoService } from "./fixtures/service.js"

describe.each(["raw", "node", "sdk"] as const)("serveHttp shutdown (%s transport)", (transport) => {
  it("answers calls still running at close instead of leaving their clients waiting", async () => {
    const service = demoService()
    const handle = await serveHttp(service, { transport, shutdownGraceMs: 150 })
    const client = new Client({ name: "shutdown-test", version: "1" })
    await client.connect(new StreamableHTTPClientTransport(new URL(handle.url)))
    try {
      const started = Date.now()
      const call = client
        .callTool({ name: "demo.slow", arguments: { steps: 100, delayMs: 100 } }, undefined, {
          timeout: 30_000,
        })
        .then(
          (result) => ({ result }),
          (error: unknown) => ({ error }),
        )
      await new Promise((r) => setTimeout(r, 200))
      await handle.close()
      const outcome = await call
      expect(Date.now() - started).toBeLessThan(5_000)
      if ("result" in outcome) {
        expect(outcome.result.isError).toBe(true)
        expect(JSON.stringify(outcome.result.content)).toMatch(/cancel|shutting down/i)
      } else {
        expect(String(outcome.error)).toMatch(/cancel|shutting down|closed|terminated/i)
      }
      expect(service.aborted.length).toBe(1)
    } finally {
      await client.close().catch(() => {})
    }
  })

  it("lets a short call finish within the grace period", async () => {
    const handle = await serveHttp(demoService(), { transport, shutdownGraceMs: 2_000 })
    const client = new Client({ name: "shutdown-test", version: "1" })
    await client.connect(new StreamableHTTPClientTransport(new URL(handle.url)))
    try {
      const call = client.callTool({ name: "demo.slow", arguments: { steps: 2, delayMs: 100 } })
      await new Promise((r) => setTimeout(r, 50))
      await handle.close()
      const result = await call
      expect(result.isError).toBeFalsy()
      expect(result.structuredContent).toEqual({ steps: 2 })
    } finally {
      await client.close().catch(() => {})
    }
  })
})
