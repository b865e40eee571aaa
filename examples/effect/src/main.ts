/**
 * A Toolplane program assembled from Effect Layers only:
 *
 * - `LocalTools`: an in-process backend whose tool has an Effect handler needing a service of its own
 *   (`Greetings`), provided by a Layer (`GreetingsLive`);
 * - `Everything`: the reference MCP server `@modelcontextprotocol/server-everything`, spawned over stdio;
 * - `TrimNames`: an enricher (an Effect-form one) that trims the `name` argument;
 * - an approver Layer that lets the listed tools run (MCP tools require approval by default).
 *
 * Calls handle typed failures with `Effect.catchTag`; the MCP backend lives in an inner scope, and once
 * that scope closes it is unregistered and its process is stopped.
 *
 * Run: `pnpm --filter @toolplane/example-effect start`.
 */
import { join } from "node:path"
import { allowList, approverLayer, EffectToolRunner, toolRunnerLayer } from "@toolplane/exec"
import {
  type Backends,
  backendLayer,
  bindHandlers,
  defineEffectEnricher,
  defineTool,
  enricherLayer,
} from "@toolplane/foundation"
import { localBackend } from "@toolplane/plugin-local"
import { mcpBackend } from "@toolplane/plugin-mcp"
import { Context, Effect, Layer } from "effect"
import { z } from "zod"

/** A service the in-process tool needs. */
export class Greetings extends Context.Service<
  Greetings,
  { readonly greet: (name: string) => Effect.Effect<string> }
>()("example/Greetings") {}

export const GreetingsLive = Layer.succeed(Greetings, {
  greet: (name: string) => Effect.succeed(`Hello, ${name}!`),
})

const greet = defineTool({
  id: "local/greet",
  description: "Greets someone by name",
  input: z.object({ name: z.string().min(1) }),
  annotations: { readOnlyHint: true },
  handler: ({ name }) => Effect.flatMap(Greetings, (greetings) => greetings.greet(name)),
})

/** The in-process backend: `bindHandlers` provides `Greetings` from the Layer context it is built in. */
export const LocalTools = backendLayer(
  Effect.map(bindHandlers([greet]), (definitions) => localBackend(definitions, { name: "local" })),
)

const everythingBin = join(import.meta.dirname, "..", "node_modules", ".bin", "mcp-server-everything")

/** The MCP server over stdio; the Layer closes it (stops the process) when its scope closes. */
export const Everything = backendLayer(
  Effect.sync(() => mcpBackend({ name: "everything", stdio: { command: everythingBin } })),
)

/** An enricher in Effect form: trims the name before `local/greet` sees it. */
export const TrimNames = enricherLayer(
  defineEffectEnricher({
    name: "trim-names",
    categories: [],
    transformArgs: (toolId, args) =>
      Effect.succeed(
        toolId === "local/greet" && typeof args.name === "string"
          ? { ...args, name: args.name.trim() }
          : args,
      ),
  }),
)

/** Approves the local tools and two MCP tools; anything else that needs approval is denied. */
export const Approvals = approverLayer(allowList(["local/*", "everything/echo", "everything/get-sum"]))

/** The runner with everything but the MCP server (which the program adds in an inner scope). */
export const AppLayer = Layer.mergeAll(LocalTools, TrimNames).pipe(
  Layer.provideMerge(toolRunnerLayer()),
  Layer.provide(Approvals),
  Layer.provide(GreetingsLive),
)

const textOf = (result: { readonly content: readonly { readonly type: string }[] }): string =>
  result.content.map((c) => ("text" in c ? String(c.text) : "")).join("")

/** What the program saw, for the printout and the test. */
export interface Report {
  readonly greeting: string
  readonly invalid: string
  readonly withEverything: {
    readonly tools: number
    readonly echo: string
    readonly sum: string
    readonly denied: string
  }
  readonly afterScope: { readonly tools: readonly string[]; readonly echo: string }
}

export const program: Effect.Effect<Report, never, EffectToolRunner | Backends> = Effect.gen(function* () {
  const runner = yield* EffectToolRunner
  const greeting = textOf(yield* runner.callTool({ name: "local/greet", arguments: { name: "  Ada  " } }))
  const invalid = yield* runner.callTool({ name: "local/greet", arguments: { name: "" } }).pipe(
    Effect.map(() => "unexpectedly accepted"),
    Effect.catchTag("InvalidArguments", (e) => Effect.succeed(e.message)),
  )

  // The MCP backend exists only inside this scope.
  const withEverything = yield* Effect.gen(function* () {
    const tools = yield* runner.listAll
    const echo = textOf(yield* runner.callTool({ name: "everything/echo", arguments: { message: "hi" } }))
    const sum = textOf(yield* runner.callTool({ name: "everything/get-sum", arguments: { a: 2, b: 3 } }))
    const denied = yield* runner.callTool({ name: "everything/get-env" }).pipe(
      Effect.map(() => "unexpectedly approved"),
      Effect.catchTag("ApprovalDenied", (e) => Effect.succeed(e.message)),
    )
    return { tools: tools.length, echo, sum, denied }
  }).pipe(Effect.provide(Everything))

  const tools = (yield* runner.listAll).map((t) => t.id)
  const echo = yield* runner.callTool({ name: "everything/echo", arguments: { message: "hi" } }).pipe(
    Effect.map(textOf),
    Effect.catchTag("ToolNotFound", (e) => Effect.succeed(e.message)),
  )
  return { greeting, invalid, withEverything, afterScope: { tools, echo } }
}).pipe(
  // Anything else is a typed failure too; the example reports it as a defect to keep `E = never`.
  Effect.orDie,
)

/** Runs the program on the application Layer. */
export const main = (): Promise<Report> => Effect.runPromise(program.pipe(Effect.provide(AppLayer)))

if (import.meta.url === `file://${process.argv[1]}`) {
  const report = await main()
  console.log(`local/greet           → ${report.greeting}`)
  console.log(`invalid arguments     → ${report.invalid}`)
  console.log(`with the MCP server   → ${report.withEverything.tools} tools`)
  console.log(`  everything/echo     → ${report.withEverything.echo}`)
  console.log(`  everything/get-sum  → ${report.withEverything.sum}`)
  console.log(`  everything/get-env  → ${report.withEverything.denied}`)
  console.log(`after its scope closed → ${report.afterScope.tools.join(", ")}`)
  console.log(`  everything/echo     → ${report.afterScope.echo}`)
}
