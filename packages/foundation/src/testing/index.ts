/**
 * Contract test suites for implementers (they import vitest), plus the definition-based backend and
 * service of `@toolplane/foundation/fixtures` (which import no test framework). Run the suites from a
 * vitest test file:
 *
 * ```ts
 * import { backendContract } from "@toolplane/foundation/testing"
 * backendContract("my backend", () => myBackend(), {
 *   sampleCall: { toolId: "demo/echo", arguments: { text: "hi" } },
 * })
 * ```
 *
 * @since 0.1.0
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Backend } from "../backend.js"
import { makeContext } from "../executionContext.js"
import { makeTool } from "../tool.js"
import { isToolError } from "../toolError.js"
import { isToolId } from "../toolId.js"
import { isToolResult } from "../toolResult.js"

/**
 * What the backend contract needs to know about the backend under test.
 *
 * @since 0.1.0
 */
export interface BackendContractOptions {
  /** A call the backend must answer with a result. */
  readonly sampleCall: { readonly toolId: string; readonly arguments: Readonly<Record<string, unknown>> }
  /** A call with arguments the tool rejects; when given, the rejection must be a typed error. */
  readonly invalidCall?: { readonly toolId: string; readonly arguments: Readonly<Record<string, unknown>> }
  /** How long a cancelled call may take to settle. Default 5000 ms. */
  readonly settleMs?: number
}

const settle = async <A>(
  promise: Promise<A>,
  ms: number,
): Promise<{ ok: true; value: A } | { ok: false; error: unknown }> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    const value = await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`did not settle within ${ms} ms`)), ms)
      }),
    ])
    return { ok: true, value }
  } catch (error) {
    return { ok: false, error }
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Registers a vitest suite that checks a backend honours the {@link Backend} contract: metadata, valid
 * and unique canonical tools, `supportedTools` agreeing with `toolSchemas`, health and approval answers,
 * a successful sample call, typed rejections (unknown tool, bad arguments, cancellation) and an
 * idempotent `close`.
 *
 * @since 0.1.0
 */
export const backendContract = (
  name: string,
  makeBackend: () => Backend | Promise<Backend>,
  options: BackendContractOptions,
): void => {
  describe(`backend contract: ${name}`, () => {
    let backend: Backend
    const settleMs = options.settleMs ?? 5000

    beforeAll(async () => {
      backend = await makeBackend()
    })
    afterAll(async () => {
      await backend?.close()
    })

    it("reports metadata naming the backend", () => {
      const meta = backend.metadata()
      expect(typeof meta.name).toBe("string")
      expect(meta.name.length).toBeGreaterThan(0)
      expect(meta.name).toBe(backend.name)
      expect(typeof meta.kind).toBe("string")
    })

    it("serves valid canonical tools with unique ids", async () => {
      const tools = await backend.toolSchemas()
      expect(tools.length).toBeGreaterThan(0)
      const ids = tools.map((t) => t.id)
      expect(new Set(ids).size).toBe(ids.length)
      for (const tool of tools) {
        expect(isToolId(tool.id), `invalid id ${tool.id}`).toBe(true)
        expect(tool.id).toBe(`${tool.namespace}/${tool.name}`)
        expect(() => makeTool(tool)).not.toThrow()
      }
    })

    it("lists the same ids in supportedTools as in toolSchemas", async () => {
      const fromSchemas = (await backend.toolSchemas()).map((t) => t.id).sort()
      const supported = [...(await backend.supportedTools())].sort()
      expect(supported).toEqual(fromSchemas)
    })

    it("answers health and approval questions with booleans", async () => {
      expect(await backend.healthCheck()).toBe(true)
      for (const id of await backend.supportedTools()) {
        expect(typeof (await backend.requiresApproval(id))).toBe("boolean")
      }
    })

    it("executes the sample call", async () => {
      const result = await backend.execute(
        { toolId: options.sampleCall.toolId, arguments: options.sampleCall.arguments },
        makeContext(),
      )
      expect(isToolResult(result)).toBe(true)
    })

    it("rejects an unknown tool with ToolNotFound", async () => {
      const outcome = await settle(
        backend.execute(
          { toolId: `${options.sampleCall.toolId}-does-not-exist`, arguments: {} },
          makeContext(),
        ),
        settleMs,
      )
      expect(outcome.ok).toBe(false)
      if (!outcome.ok) {
        expect(isToolError(outcome.error), String(outcome.error)).toBe(true)
        expect((outcome.error as { _tag: string })._tag).toBe("ToolNotFound")
      }
    })

    if (options.invalidCall) {
      const invalid = options.invalidCall
      it("rejects invalid arguments with a typed error", async () => {
        const outcome = await settle(backend.execute({ ...invalid }, makeContext()), settleMs)
        if (outcome.ok) {
          expect(outcome.value.isError, "invalid arguments must fail").toBe(true)
        } else {
          expect(isToolError(outcome.error), String(outcome.error)).toBe(true)
        }
      })
    }

    it("settles a cancelled call with a result or a typed error", async () => {
      const controller = new AbortController()
      controller.abort(new Error("cancelled by contract test"))
      const outcome = await settle(
        backend.execute(
          { toolId: options.sampleCall.toolId, arguments: options.sampleCall.arguments },
          makeContext({ signal: controller.signal }),
        ),
        settleMs,
      )
      if (outcome.ok) expect(isToolResult(outcome.value)).toBe(true)
      else expect(isToolError(outcome.error), String(outcome.error)).toBe(true)
    })

    it("closes idempotently", async () => {
      const other = await makeBackend()
      await other.close()
      await expect(other.close()).resolves.toBeUndefined()
    })
  })
}

export { type AdapterContractOptions, adapterContract } from "./adapterContract.js"
export {
  type DefinitionBackendOptions,
  definitionBackend,
} from "./definitionBackend.js"
export {
  type DefinitionService,
  type DefinitionServiceOptions,
  definitionService,
} from "./definitionService.js"
export { type EnricherContractOptions, enricherContract } from "./enricherContract.js"
