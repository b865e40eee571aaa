import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js"
import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from "@modelcontextprotocol/server"
import {
  BackendUnavailable,
  ExecutionFailed,
  InvalidArguments,
  InvalidCursor,
  makeTool,
  Timeout,
  ToolNotFound,
} from "@toolplane/foundation"
import { describe, expect, it } from "vitest"
import {
  callFailureToMcp,
  canonicalIdOf,
  checkDnsRebinding,
  dnsRebindingPolicy,
  ERROR_META_KEY,
  fromMcpTool,
  type McpTool,
  mcpAdapter,
  mcpErrorKind,
  mcpFailureToToolError,
  sanitizeToolName,
  TOOL_META_KEY,
  toMcpTool,
  toolErrorFromResult,
} from "../src/index.js"

const weather = makeTool({
  id: "weather/current",
  title: "Current weather",
  description: "Current weather for a city",
  version: "1.2.0",
  inputSchema: {
    type: "object",
    properties: {
      city: { type: "string", format: "uri" },
      units: { oneOf: [{ const: "c" }, { const: "f" }] },
    },
    required: ["city"],
  },
  outputSchema: { type: "object", properties: { temp: { type: "number" } } },
  annotations: { readOnlyHint: true, openWorldHint: true },
  tags: ["Weather", "read only"],
  category: "data",
  intents: ["what's the weather"],
  exampleArgs: [{ city: "https://oslo.example" }],
  timeoutMs: 5000,
  metadata: { owner: "team-a", _meta: { "vendor.example/x": 1 } },
})

describe("MCP adapter", () => {
  it("round-trips a canonical tool through MCP without loss", () => {
    const adapter = mcpAdapter({ namespace: "other" })
    const { value, warnings } = adapter.fromCanonical(weather)
    expect(warnings).toEqual([])
    expect(value.name).toBe("weather.current")
    expect(value.title).toBe("Current weather")
    expect(value.annotations).toEqual({ readOnlyHint: true, openWorldHint: true })
    expect(value.outputSchema).toEqual(weather.outputSchema)
    expect(value._meta?.["vendor.example/x"]).toBe(1)
    expect(value._meta?.[TOOL_META_KEY]).toMatchObject({ id: "weather/current", version: "1.2.0" })
    expect(adapter.toCanonical(value)).toEqual(weather)
  })

  it("warns for each Toolplane-only field when extensions are off", () => {
    const adapter = mcpAdapter({ extensions: false })
    const { value, warnings } = adapter.fromCanonical(weather)
    expect(value._meta).toEqual({ "vendor.example/x": 1 })
    expect(warnings.map((w) => w.feature).sort()).toEqual(
      ["category", "exampleArgs", "intents", "metadata", "tags", "timeoutMs", "version"].sort(),
    )
    expect(
      warnings.every((w) => w.from === "canonical" && w.to === "mcp" && w.toolId === "weather/current"),
    ).toBe(true)
    expect(adapter.supportsFeature("tags")).toBe(false)
    expect(adapter.supportsFeature("oneOf")).toBe(true)
    // Without the extension the tool comes back in the adapter's namespace under its MCP name.
    const back = adapter.toCanonical(value)
    expect(back.id).toBe("mcp/weather.current")
    expect(back.inputSchema).toEqual(weather.inputSchema)
    expect(back.annotations).toEqual(weather.annotations)
  })

  it("warns when a naming policy produces a name outside the MCP alphabet", () => {
    const { value, warnings } = toMcpTool(weather, { naming: "id" })
    expect(value.name).toBe("weather/current")
    expect(warnings).toEqual([expect.objectContaining({ feature: "toolName", path: "/id" })])
    expect(toMcpTool(weather, { naming: "name" }).value.name).toBe("current")
  })

  it("maps MCP names back to ids", () => {
    expect(canonicalIdOf("weather.current")).toBe("weather/current")
    expect(canonicalIdOf("ns.a.b")).toBe("ns/a.b")
    expect(canonicalIdOf("nodot")).toBeUndefined()
    expect(canonicalIdOf("weather/current", "id")).toBe("weather/current")
    expect(canonicalIdOf("current", "name")).toBeUndefined()
  })

  it("keeps MCP fields (title, annotations, outputSchema, _meta, icons, execution) when converting in", () => {
    const native: McpTool = {
      name: "search web",
      title: "Search",
      description: "Searches",
      inputSchema: { type: "object", properties: { q: { type: "string" } } },
      outputSchema: { type: "object", properties: { hits: { type: "array" } } },
      annotations: { readOnlyHint: true },
      icons: [{ src: "https://example.com/i.png" }],
      execution: { taskSupport: "optional" },
      _meta: { "vendor.example/k": "v" },
    }
    const { value, warnings } = fromMcpTool(native, "web")
    expect(value.id).toBe("web/search_web")
    expect(warnings).toEqual([expect.objectContaining({ feature: "toolName" })])
    expect(value.title).toBe("Search")
    expect(value.outputSchema).toEqual(native.outputSchema)
    expect(value.metadata).toEqual({
      _meta: { "vendor.example/k": "v" },
      mcp: { name: "search web", icons: native.icons, execution: native.execution },
    })
    const out = toMcpTool(value).value
    expect(out.icons).toEqual(native.icons)
    expect(out.execution).toEqual(native.execution)
    expect(out._meta?.["vendor.example/k"]).toBe("v")
  })

  it("ignores a malformed Toolplane extension instead of losing the tool", () => {
    const { value, warnings } = fromMcpTool(
      { name: "t", inputSchema: { type: "object" }, _meta: { [TOOL_META_KEY]: { version: "not semver" } } },
      "ns",
    )
    expect(value.id).toBe("ns/t")
    expect(value.version).toBeUndefined()
    expect(warnings).toEqual([expect.objectContaining({ feature: TOOL_META_KEY })])
  })

  it("treats an input schema without a type as an object schema, with a warning", () => {
    const { value, warnings } = fromMcpTool(
      { name: "loose", inputSchema: {} as McpTool["inputSchema"] },
      "ns",
    )
    expect(value.inputSchema).toEqual({ type: "object" })
    expect(warnings).toEqual([expect.objectContaining({ feature: "inputSchema" })])
  })

  it("sanitizes names", () => {
    expect(sanitizeToolName("a b/c")).toBe("a_b_c")
    expect(sanitizeToolName(".hidden")).toBe("_.hidden")
    expect(sanitizeToolName("x".repeat(200))).toHaveLength(128)
  })
})

describe("error mapping", () => {
  it("makes unknown tools and bad cursors protocol errors, everything else isError results", () => {
    expect(mcpErrorKind(new ToolNotFound({ toolId: "a/b", suggestions: [] }))).toBe("protocol")
    expect(mcpErrorKind(new InvalidCursor({ reason: "x" }))).toBe("protocol")
    expect(mcpErrorKind(new InvalidArguments({ toolId: "a/b", issues: [] }))).toBe("result")
    expect(mcpErrorKind(new Timeout({ toolId: "a/b", timeoutMs: 5 }))).toBe("result")
    expect(mcpErrorKind(new BackendUnavailable({ backend: "x", reason: "down" }))).toBe("result")

    const thrown = (() => {
      try {
        callFailureToMcp(new ToolNotFound({ toolId: "a/b", suggestions: ["a/c"] }))
      } catch (error) {
        return error
      }
    })() as ProtocolError
    expect(thrown).toBeInstanceOf(ProtocolError)
    expect(thrown.code).toBe(ErrorCode.InvalidParams)
    expect(mcpFailureToToolError(thrown, { backend: "x", toolId: "a/b" })).toMatchObject({
      _tag: "ToolNotFound",
      suggestions: ["a/c"],
    })

    const result = callFailureToMcp(
      new InvalidArguments({ toolId: "a/b", issues: [{ path: "/x", rule: "type", message: "m" }] }),
    )
    expect(result.isError).toBe(true)
    expect(toolErrorFromResult(result)).toBeInstanceOf(InvalidArguments)

    // The message goes on the wire as is (the receiving client adds its own "MCP error -32603: ").
    const internal = (() => {
      try {
        callFailureToMcp(new Error("secret detail"))
      } catch (error) {
        return error
      }
    })()
    expect(internal).toMatchObject({ code: -32603, message: "Internal error" })
  })

  it("maps SDK failures to typed errors", () => {
    const info = { backend: "be", toolId: "be/t", timeoutMs: 100 }
    expect(
      mcpFailureToToolError(new McpError(ErrorCode.ConnectionClosed, "Connection closed"), info),
    ).toBeInstanceOf(BackendUnavailable)
    expect(
      mcpFailureToToolError(new McpError(ErrorCode.RequestTimeout, "Request timed out"), info),
    ).toMatchObject({
      _tag: "Timeout",
      timeoutMs: 100,
    })
    expect(
      mcpFailureToToolError(new McpError(ErrorCode.InvalidParams, "Unknown tool: t"), info),
    ).toBeInstanceOf(ToolNotFound)
    expect(mcpFailureToToolError(new McpError(ErrorCode.InvalidParams, "bad"), info)).toBeInstanceOf(
      InvalidArguments,
    )
    expect(mcpFailureToToolError(new TypeError("fetch failed"), info)).toBeInstanceOf(BackendUnavailable)
    expect(mcpFailureToToolError(new Error("weird"), info)).toBeInstanceOf(ExecutionFailed)
    // MCP SDK v2 (the client the backend runs on): closed connections and timeouts are SdkErrors.
    expect(
      mcpFailureToToolError(new SdkError(SdkErrorCode.ConnectionClosed, "Connection closed"), info),
    ).toMatchObject({ _tag: "BackendUnavailable", reason: "Connection closed" })
    expect(
      mcpFailureToToolError(new SdkError(SdkErrorCode.RequestTimeout, "Request timed out"), info),
    ).toMatchObject({ _tag: "Timeout", timeoutMs: 100 })
    expect(
      mcpFailureToToolError(
        new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, "gone", { status: 404 }),
        info,
      ),
    ).toBeInstanceOf(BackendUnavailable)
    expect(mcpFailureToToolError(new ProtocolError(-32602, "Unknown tool: t"), info)).toBeInstanceOf(
      ToolNotFound,
    )
    expect(mcpFailureToToolError(new ProtocolError(-32602, "bad"), info)).toMatchObject({
      _tag: "InvalidArguments",
      issues: [{ message: "bad" }],
    })
    const carried = new McpError(ErrorCode.InternalError, "x", {
      [ERROR_META_KEY]: { _tag: "RateLimited", code: "RATE_LIMITED", message: "", key: "k", retryAfterMs: 5 },
    })
    expect(mcpFailureToToolError(carried, info)).toMatchObject({ _tag: "RateLimited", retryAfterMs: 5 })
  })
})

describe("DNS-rebinding policy", () => {
  const local = dnsRebindingPolicy("127.0.0.1")
  it("accepts only loopback hosts when bound to loopback", () => {
    expect(checkDnsRebinding({ host: "127.0.0.1:8080" }, local)).toBeUndefined()
    expect(checkDnsRebinding({ host: "localhost" }, local)).toBeUndefined()
    expect(checkDnsRebinding({ host: "[::1]:1" }, local)).toBeUndefined()
    expect(checkDnsRebinding({ host: "evil.example" }, local)).toMatch(/evil\.example/)
    expect(checkDnsRebinding({}, local)).toMatch(/missing Host/)
    expect(checkDnsRebinding({ host: "localhost", origin: "http://localhost:3000" }, local)).toBeUndefined()
    expect(checkDnsRebinding({ host: "localhost", origin: "https://evil.example" }, local)).toMatch(/Origin/)
  })
  it("accepts any host on a specific public bind unless hosts are listed, but no foreign Origin", () => {
    const specific = dnsRebindingPolicy("10.0.0.5")
    expect(checkDnsRebinding({ host: "anything.example" }, specific)).toBeUndefined()
    expect(
      checkDnsRebinding({ host: "mcp.example", origin: "https://mcp.example" }, specific),
    ).toBeUndefined()
    expect(checkDnsRebinding({ host: "mcp.example", origin: "https://evil.example" }, specific)).toMatch(
      /Origin/,
    )
    expect(checkDnsRebinding({ host: "mcp.example", origin: "null" }, specific)).toMatch(/Origin/)
  })
  it("accepts only the machine's own names and addresses on a wildcard bind", () => {
    const wildcard = dnsRebindingPolicy("0.0.0.0", {}, 8080)
    expect(checkDnsRebinding({ host: "anything.example" }, wildcard)).toMatch(/anything\.example/)
    expect(checkDnsRebinding({ host: "127.0.0.1:8080" }, wildcard)).toBeUndefined()
    expect(checkDnsRebinding({ host: "127.0.0.1:9090" }, wildcard)).toBeDefined()
    expect(checkDnsRebinding({ host: "[::1]:8080" }, dnsRebindingPolicy("::", {}, 8080))).toBeUndefined()
    expect(
      checkDnsRebinding({ host: "localhost:8080", origin: "http://evil.example:8080" }, wildcard),
    ).toMatch(/Origin/)
    expect(
      checkDnsRebinding({ host: "localhost:8080", origin: "http://localhost:8080" }, wildcard),
    ).toBeUndefined()
    const listed = dnsRebindingPolicy("0.0.0.0", { allowedHosts: ["mcp.example"] })
    expect(checkDnsRebinding({ host: "mcp.example:443" }, listed)).toBeUndefined()
    expect(checkDnsRebinding({ host: "other.example" }, listed)).toBeDefined()
    const extra = dnsRebindingPolicy("localhost", { allowedHosts: ["dev.local"] })
    expect(checkDnsRebinding({ host: "dev.local" }, extra)).toBeUndefined()
    expect(checkDnsRebinding({ host: "127.0.0.1" }, extra)).toBeUndefined()
  })
})
