/** The Effect face: SandboxService's Layer (closed with its scope) and the plain/Effect converters. */
import { type Sandbox, SandboxService, sandboxFromEffect, sandboxToEffect } from "@toolplane/exec"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { quickJsSandbox } from "../src/index.js"

describe("sandbox Effect face", () => {
  it("provides the sandbox as a service and closes it with the layer's scope", async () => {
    let made: Sandbox | undefined
    const program = Effect.gen(function* () {
      const sandbox = yield* SandboxService
      const ok = yield* sandbox.run({ code: "return 6 * 7" })
      const caught = yield* sandbox
        .run({ code: "throw new SyntaxError('x')" })
        .pipe(Effect.catchTag("SandboxError", (e) => Effect.succeed(e.cause.name)))
      return [ok.result, caught]
    })
    const result = await Effect.runPromise(
      program.pipe(
        Effect.provide(
          SandboxService.layer(() => {
            made = quickJsSandbox({ maxWorkers: 1 })
            return made
          }),
        ),
      ),
    )
    expect(result).toEqual([42, "SyntaxError"])
    await expect(made!.run({ code: "return 1" })).rejects.toMatchObject({ _tag: "SandboxCrashed" })
  })

  it("round-trips plain → Effect → plain with typed failures and cancellation", async () => {
    const inner = quickJsSandbox({ maxWorkers: 1 })
    const plain = sandboxFromEffect(sandboxToEffect(inner))
    expect((await plain.run({ code: "return 'x'" })).result).toBe("x")
    await expect(plain.run({ code: "for (;;) {}", limits: { wallTimeMs: 100 } })).rejects.toMatchObject({
      _tag: "SandboxTimeout",
      timeoutMs: 100,
    })
    const controller = new AbortController()
    const pending = plain.run({
      code: "for (;;) {}",
      signal: controller.signal,
      limits: { wallTimeMs: 20_000 },
    })
    setTimeout(() => controller.abort(), 50)
    await expect(pending).rejects.toMatchObject({ _tag: "Cancelled" })
    await plain.close()
  })
})
