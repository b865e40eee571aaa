/**
 * `pnpm --filter @toolplane/cli bench`: the CLI-level benchmarks, one after the other —
 * stack.bench.ts (gatewayStack over the exec runner, issue 4) then gateway.bench.ts (`toolplane serve`
 * fronting an MCP server versus the server directly, issue 5). About 40 s in all.
 */
await import("./stack.bench.js")
await import("./gateway.bench.js")

export {}
