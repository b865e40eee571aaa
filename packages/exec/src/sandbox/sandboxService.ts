/**
 * The sandbox as an Effect service (its own file so the tag can be renamed with exec's other services).
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import { type EffectSandbox, type Sandbox, sandboxToEffect } from "./sandbox.js"

/**
 * The {@link EffectSandbox} in context.
 *
 * @example
 * ```ts
 * const program = Effect.gen(function* () {
 *   const sandbox = yield* SandboxService
 *   return yield* sandbox.run({ code: "return 6 * 7" })
 * }).pipe(Effect.catchTag("SandboxTimeout", () => Effect.succeed(undefined)))
 * await Effect.runPromise(Effect.scoped(program.pipe(Effect.provide(SandboxService.layer(() => quickJsSandbox())))))
 * ```
 *
 * @since 0.1.0
 */
export class SandboxService extends Context.Service<SandboxService, EffectSandbox>()(
  "@toolplane/exec/Sandbox",
) {
  /**
   * A Layer that creates a plain sandbox and closes it with the Layer's scope.
   *
   * @since 0.1.0
   */
  static readonly layer = (make: () => Sandbox): Layer.Layer<SandboxService> =>
    Layer.effect(
      SandboxService,
      Effect.acquireRelease(
        Effect.sync(() => sandboxToEffect(make())),
        (sandbox) => sandbox.close,
      ),
    )
}
