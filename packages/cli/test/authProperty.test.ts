/**
 * Property: whatever the configuration (aliases, composites, exposure), the grants and the path, a caller
 * never sees nor runs a tool its scopes do not grant. Each case opens the real gateway in-process
 * (`liveGateway` over `openGateway`: the scope policy, the composed stack, search mode or code mode, the
 * runner with its prefetch engine) over a module whose handlers record every execution with the
 * caller's scopes, then calls along every path: direct calls, `search_tools` / `describe_tool` /
 * `call_tool`, code-mode programs and `tools.$search`, composites, and learned prefetches.
 */
import { join } from "node:path"
import { fc, test } from "@fast-check/vitest"
import { listAllTools, makeContext, type ToolService } from "@toolplane/foundation"
import { CALLER_SCOPES_KEY } from "@toolplane/plugin-mcp"
import { describe, expect } from "vitest"
import { parseConfig } from "../src/config/load.js"
import { openGateway } from "../src/gateway.js"
import { liveGateway } from "../src/liveGateway.js"
import { executions, NAMES, NAMESPACES, resetExecutions } from "./fixtures/authzTools.js"
import { FIXTURES } from "./helpers/processes.js"

const BACKEND_IDS = NAMESPACES.flatMap((ns) => NAMES.map((name) => `${ns}/${name}`))
const ENV = { TP_AUTHZ_TOKEN: "authz-property-token-0123456789" }

interface Case {
  readonly exposure: "all" | "search" | "code"
  /** Backend id → alias. */
  readonly aliases: Readonly<Record<string, string>>
  /** Composite id → targets (served ids). */
  readonly composites: Readonly<Record<string, readonly string[]>>
  /** The narrow scope's tool grants (exact ids or `ns/*`). */
  readonly grants: readonly string[]
  /** A call pattern the caller repeats (prefetch learns it). */
  readonly pattern: readonly [string, string]
}

const caseArb: fc.Arbitrary<Case> = fc
  .record({
    // Code mode runs programs in a sandbox (about a second per case here): fewer of those.
    exposure: fc.oneof(
      { arbitrary: fc.constant("all" as const), weight: 3 },
      { arbitrary: fc.constant("search" as const), weight: 3 },
      { arbitrary: fc.constant("code" as const), weight: 1 },
    ),
    aliased: fc.subarray(BACKEND_IDS, { maxLength: 4 }),
  })
  .chain(({ exposure, aliased }) => {
    const aliases = Object.fromEntries(aliased.map((id) => [id, `al/${id.replace("/", "_")}`]))
    const served = BACKEND_IDS.map((id) => aliases[id] ?? id)
    return fc
      .record({
        composites: fc.array(fc.subarray(served, { minLength: 1, maxLength: 3 }), { maxLength: 2 }),
        grantIds: fc.subarray([...served, ...BACKEND_IDS.filter((id) => aliases[id] !== undefined)], {
          maxLength: 5,
        }),
        grantGlobs: fc.subarray(["pub/*", "sec/*", "ops/*", "al/*", "composite/*"], { maxLength: 2 }),
        grantComposites: fc.subarray(["composite/c0", "composite/c1"]),
        pattern: fc.tuple(fc.constantFrom(...served), fc.constantFrom(...served)),
      })
      .map(({ composites, grantIds, grantGlobs, grantComposites, pattern }) => ({
        exposure,
        aliases,
        composites: Object.fromEntries(composites.map((targets, i) => [`composite/c${i}`, targets])),
        grants: ["toolplane/*", ...grantIds, ...grantGlobs, ...grantComposites],
        pattern,
      }))
  })

const toml = (c: Case): string =>
  [
    `tool_exposure = "${c.exposure}"`,
    "",
    "[aliases]",
    ...Object.entries(c.aliases).map(([id, alias]) => `"${id}" = "${alias}"`),
    "",
    ...Object.entries(c.composites).flatMap(([id, targets]) => [
      "[[composite_tools]]",
      `name = "${id}"`,
      `tools = ${JSON.stringify(targets)}`,
      "",
    ]),
    "[server.auth]",
    'tokens = [{ env = "TP_AUTHZ_TOKEN", client = "c", scopes = ["narrow"] }]',
    "",
    "[server.auth.scopes.narrow]",
    `tools = ${JSON.stringify(c.grants)}`,
    "",
    "[server.auth.scopes.wide]",
    'tools = ["re:.*"]',
    "",
    "[code]",
    "max_programs = 1",
    "",
    "[prefetch]",
    "enabled = true",
    "",
    "[[backends]]",
    'name = "local"',
    `module = ${JSON.stringify(join(FIXTURES, "authzTools.ts"))}`,
    "require_approval = false",
    "",
  ].join("\n")

/** The oracle, independent of the implementation: does a grant name this served id? */
const grantedIn = (grants: readonly string[], id: string): boolean =>
  grants.some((g) => g === id || (g.endsWith("/*") && id.startsWith(g.slice(0, -1))))

const settle = () => new Promise((r) => setTimeout(r, 15))

describe("authorization property", () => {
  test.prop([caseArb], { numRuns: 30, timeout: 60_000 })(
    "nothing outside a caller's grants is visible or executed, on any path",
    async (c) => {
      resetExecutions()
      const live = await liveGateway(parseConfig(toml(c)), {
        open: (config, extra) => openGateway(config, { ...extra, env: ENV, warnRandomCursorKey: false }),
        transport: "http",
        env: ENV,
        baseDir: FIXTURES,
      })
      try {
        const served = (id: string) => c.aliases[id] ?? id
        const granted = (id: string) => grantedIn(c.grants, id)
        const as = (scope: string) => () =>
          makeContext({ callerId: "c", metadata: { [CALLER_SCOPES_KEY]: [scope] } })
        const narrow = as("narrow")
        // Another token of the same client, granted everything: what it teaches must not run for narrow.
        const wide = as("wide")
        const service: ToolService = live.service
        const ns = (id: string) => id.slice(0, id.indexOf("/"))
        const name = (id: string) => id.slice(id.indexOf("/") + 1)
        /** Calls each id in order along the case's path; whether each call succeeded. */
        const callEach = async (ids: readonly string[], context = narrow): Promise<boolean[]> => {
          if (c.exposure === "code") {
            // One program makes all the calls (a program per call would cost a sandbox run each).
            const program = `const ok = []
              for (const [ns, name] of ${JSON.stringify(ids.map((id) => [ns(id), name(id)]))}) {
                try { await tools[ns][name]({ n: 1 }); ok.push(true) } catch { ok.push(false) }
              }
              return ok`
            const result = await service.callTool({
              name: "toolplane/execute_code",
              arguments: { code: program },
              context: context(),
            })
            return (result.structuredContent as { result: boolean[] }).result
          }
          const outcomes: boolean[] = []
          for (const id of ids) {
            try {
              const result =
                c.exposure === "all"
                  ? await service.callTool({ name: id, arguments: { n: 1 }, context: context() })
                  : await service.callTool({
                      name: "toolplane/call_tool",
                      arguments: { id, arguments: { n: 1 } },
                      context: context(),
                    })
              outcomes.push(result.isError !== true)
            } catch {
              outcomes.push(false)
            }
          }
          return outcomes
        }

        // The wide token lists and searches first: nothing it sees may be served to narrow from a cache.
        await listAllTools(service, { context: wide() })
        if (c.exposure === "search")
          await service.callTool({
            name: "toolplane/search_tools",
            arguments: { query: "team figure", limit: 50 },
            context: wide(),
          })

        // What the caller can see.
        const seen = new Set<string>()
        const listed = await listAllTools(service, { context: narrow() })
        for (const tool of listed) seen.add(tool.id)
        const candidates = [
          ...BACKEND_IDS,
          ...Object.values(c.aliases),
          ...Object.keys(c.composites),
          "composite/c0",
          "composite/c1",
        ]
        if (c.exposure === "search") {
          for (const query of [
            "alpha",
            "beta",
            "gamma",
            "pub team",
            "sec team",
            "ops team",
            "figure",
            "calls",
          ]) {
            const found = await service.callTool({
              name: "toolplane/search_tools",
              arguments: { query, limit: 50 },
              context: narrow(),
            })
            for (const hit of (found.structuredContent as { hits: { id: string }[] }).hits) seen.add(hit.id)
          }
          for (const id of candidates) {
            const described = await service
              .callTool({ name: "toolplane/describe_tool", arguments: { id }, context: narrow() })
              .catch(() => undefined)
            if (described !== undefined && described.isError !== true) seen.add(id)
          }
        }
        if (c.exposure === "code") {
          const declaration = listed.find((t) => t.id === "toolplane/execute_code")?.description ?? ""
          for (const id of BACKEND_IDS)
            if (declaration.includes(`The ${name(id)} tool of the ${ns(id)} team`)) seen.add(served(id))
          for (const id of Object.keys(c.composites))
            if (declaration.includes(`${name(id)}(args`)) seen.add(id)
          const searched = await service.callTool({
            name: "toolplane/execute_code",
            arguments: {
              code: 'const ids = []; for (const q of ["alpha", "beta", "gamma", "team figure", "calls"]) for (const t of await tools.$search(q, 20)) ids.push(t.id); return ids',
            },
            context: narrow(),
          })
          for (const id of (searched.structuredContent as { result: string[] }).result) seen.add(id)
        }
        for (const id of seen)
          if (!id.startsWith("toolplane/")) expect(granted(id), `${id} is visible to the caller`).toBe(true)

        // Every path: each candidate (granted or not, original ids of aliased tools included), then a
        // repeated pattern that the prefetch engine learns.
        const outcomes = await callEach(candidates)
        candidates.forEach((id, i) => {
          const backendTool = BACKEND_IDS.includes(id) && served(id) === id
          if (backendTool || Object.values(c.aliases).includes(id))
            // A granted backend tool or alias runs; the rest is refused.
            expect(outcomes[i], `calling ${id}`).toBe(granted(id))
        })
        const [first, second] = c.pattern
        for (let i = 0; i < 3; i++) {
          await callEach([first, second], wide)
          await settle()
        }
        for (let i = 0; i < 3; i++) {
          await callEach([first, second])
          await settle()
        }
        await callEach([first])
        await settle()

        for (const execution of executions()) {
          expect(execution.scopes, `${execution.id} ran without the caller's scopes`).toBeDefined()
          if (execution.scopes![0] === "wide") continue
          expect(execution.scopes).toEqual(["narrow"])
          expect(granted(served(execution.id)), `${execution.id} ran for the caller`).toBe(true)
        }
      } finally {
        await live.close()
      }
    },
  )
})
