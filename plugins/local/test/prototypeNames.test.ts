/**
 * Through a runner: tools whose parameters are named like `Object.prototype` members (`constructor`,
 * `toString`) or `__proto__`, called with arguments parsed from JSON (so `__proto__` is an own key).
 */
import { createRunner } from "@toolplane/exec"
import {
  defineBackend,
  defineTool,
  InvalidArguments,
  type JsonSchema,
  makeTool,
  textResult,
} from "@toolplane/foundation"
import { afterEach, describe, expect, it } from "vitest"
import { localBackend } from "../src/index.js"

const schema = (text: string): JsonSchema => JSON.parse(text)
const json = (text: string): Record<string, unknown> => JSON.parse(text)

const INPUT =
  '{"type":"object","properties":{"__proto__":{"type":"object","properties":{"polluted":{"type":"boolean"}}},"constructor":{"type":"string"},"toString":{"type":"number"}},"required":["constructor"],"additionalProperties":false}'

/** The error a call failed with, checked to be InvalidArguments. */
const invalid = async (call: Promise<unknown>): Promise<InvalidArguments> => {
  const error = await call.catch((e: unknown) => e)
  expect(error).toBeInstanceOf(InvalidArguments)
  return error as InvalidArguments
}

afterEach(() => {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined()
})

describe.each([
  [
    "a local backend (the definition's validator)",
    (seen: unknown[]) =>
      localBackend([
        defineTool({
          id: "demo/proto",
          input: schema(INPUT),
          annotations: { readOnlyHint: true },
          handler: (args) => {
            seen.push(args)
            return "ok"
          },
        }),
      ]),
  ],
  [
    "a plain backend (the runner compiles the listed schema)",
    (seen: unknown[]) =>
      defineBackend({
        name: "plain",
        toolSchemas: () => [makeTool({ id: "demo/proto", inputSchema: schema(INPUT) })],
        execute: (call) => {
          seen.push(call.arguments)
          return textResult("ok")
        },
        requiresApproval: () => false,
      }),
  ],
])("runner with %s", (_name, backendOf) => {
  it("passes an own __proto__ key through to the tool unchanged", async () => {
    const seen: unknown[] = []
    const runner = createRunner({ backends: [backendOf(seen)] })
    const result = await runner.callTool({
      name: "demo/proto",
      arguments: json('{"constructor":"c","__proto__":{"polluted":true}}'),
    })
    expect(result.isError).not.toBe(true)
    const args = seen[0] as Record<string, unknown>
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype)
    expect(Object.getOwnPropertyDescriptor(args, "__proto__")?.value).toEqual({ polluted: true })
    expect(args.polluted).toBeUndefined()
    expect(JSON.stringify(args)).toBe('{"constructor":"c","__proto__":{"polluted":true}}')
  })

  it("rejects a missing required constructor with InvalidArguments naming it", async () => {
    const seen: unknown[] = []
    const runner = createRunner({ backends: [backendOf(seen)] })
    const error = await invalid(runner.callTool({ name: "demo/proto", arguments: { toString: 1 } }))
    expect(error.issues).toEqual([
      { path: "/constructor", rule: "required", message: 'missing required property "constructor"' },
    ])
    expect(error.message).toContain('"constructor"')
    expect(seen).toEqual([])
  })

  it("checks __proto__ against its subschema, at its path", async () => {
    const seen: unknown[] = []
    const runner = createRunner({ backends: [backendOf(seen)] })
    const error = await invalid(
      runner.callTool({
        name: "demo/proto",
        arguments: json('{"constructor":"c","__proto__":{"polluted":"yes"}}'),
      }),
    )
    expect(error.issues).toEqual([{ path: "/__proto__/polluted", rule: "type", message: "must be boolean" }])
    expect(seen).toEqual([])
  })
})
