/**
 * The gateway configuration: what `toolplane.toml` may contain. Keys are snake_case; unknown keys are
 * errors (a typo must not be silently ignored).
 *
 * @since 0.1.0
 */
import { z } from "zod"

const namespace = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, {
  message: 'must be 1-64 letters, digits, "_" or "-", starting with a letter or digit',
})

const toolId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}\/[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/, {
  message: 'must be a tool id "namespace/name"',
})

const pattern = z.string().min(1, { message: "must not be empty" })

/** @since 0.1.0 */
export const McpStdioConfig = z.strictObject({
  command: z
    .string({ message: "must name the command to run" })
    .min(1, { message: "must name the command to run" }),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  cwd: z.string().optional(),
  /** Variables of the gateway's environment the server also gets (names, or prefixes ending in `*`); besides HOME, LOGNAME, PATH, SHELL, TERM, USER. */
  env_passthrough: z
    .array(
      z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*\*?$/, "must be a variable name, or a prefix ending in *"),
    )
    .default([]),
})

/** @since 0.1.0 */
export const McpHttpConfig = z.strictObject({
  url: z.url({ protocol: /^https?$/, message: "must be an http(s) URL" }),
  headers: z.record(z.string(), z.string()).default({}),
})

/** @since 0.1.0 */
export const FilterConfig = z.strictObject({
  /** Ids or patterns (exact, glob `*`/`?`, or `re:REGEX`) to keep. */
  allow: z.array(pattern).optional(),
  /** Ids or patterns to hide. */
  deny: z.array(pattern).optional(),
  tags_any: z.array(z.string()).optional(),
  tags_none: z.array(z.string()).optional(),
  read_only: z.boolean().optional(),
  hide_destructive: z.boolean().optional(),
  /** Serve the backend's resources and resource templates (default true). */
  resources: z.boolean().optional(),
  /** Serve the backend's prompts (default true); `allow`/`deny` also apply to their ids `backend/prompt`. */
  prompts: z.boolean().optional(),
})

/**
 * OAuth to an upstream MCP server: `client_credentials` (machine to machine; `client_secret_env` names the
 * variable holding the secret) or `authorization_code` (one service identity, consent by `toolplane auth
 * login <backend>`; tokens kept in `token_store`, encrypted with the 32-byte key in `token_key_env`).
 *
 * @since 0.1.0
 */
export const UpstreamAuthConfig = z
  .strictObject({
    type: z.literal("oauth", { message: 'must be "oauth"' }),
    grant: z.enum(["client_credentials", "authorization_code"]),
    /** A pre-registered client id or a Client ID Metadata Document URL; omitted: dynamic registration. */
    client_id: z.string().min(1).optional(),
    client_secret_env: z.string().min(1).optional(),
    scopes: z.array(z.string().min(1)).default([]),
    /** The expected authorization server; the backend's resource metadata must name it. */
    issuer: z.url({ protocol: /^https?$/, message: "must be an http(s) URL" }).optional(),
    /** Encrypted token file, relative to the config file. Default `toolplane.tokens`. */
    token_store: z.string().min(1).default("toolplane.tokens"),
    token_key_env: z.string().min(1).default("TOOLPLANE_TOKEN_KEY"),
    /**
     * `"service"` (default): one identity for the gateway. `"per_caller"` (authorization code): each
     * authenticated caller's own token, from its consent `toolplane auth login <backend> --caller <id>`.
     */
    mode: z.enum(["service", "per_caller"]).default("service"),
    /** `per_caller`: at most this many caller connections open at once. Default 64. */
    max_callers: z.number().int().positive().optional(),
  })
  .superRefine((auth, ctx) => {
    if (auth.mode === "per_caller" && auth.grant !== "authorization_code")
      ctx.addIssue({
        code: "custom",
        message: 'mode "per_caller" needs grant "authorization_code"',
        path: ["mode"],
      })
    if (
      auth.grant === "client_credentials" &&
      (auth.client_id === undefined || auth.client_secret_env === undefined)
    )
      ctx.addIssue({
        code: "custom",
        message: 'client_credentials needs "client_id" and "client_secret_env"',
        path: [],
      })
  })

/** @since 0.1.0 */
export const BackendConfig = z
  .strictObject({
    name: namespace,
    /** An ES module (path relative to the config file) exporting `defineTool` tools. */
    module: z.string().min(1).optional(),
    mcp: z
      .union([McpStdioConfig, McpHttpConfig], {
        message: "must be { command, args?, env?, cwd? } (stdio) or { url, headers? } (Streamable HTTP)",
      })
      .optional(),
    filter: FilterConfig.optional(),
    /** `true`: every call needs approval; `false`: none does; omitted: the backend default (local: all but read-only tools; MCP: all). A gateway has no approver, so calls needing approval fail with ApprovalRequired. */
    require_approval: z.boolean().optional(),
    /**
     * What happens to a call that needs approval: `"elicit"` asks the calling user through MCP
     * elicitation (a client without elicitation gets ApprovalRequired), `"deny"` refuses it
     * (ApprovalDenied), `"allow"` runs it. Omitted: ApprovalRequired (no approver).
     */
    approval: z.enum(["elicit", "deny", "allow"]).optional(),
    /**
     * Which of this backend's tools may be re-sent after a failure (`limits.retries`): `true` (all),
     * tool ids or patterns. An MCP server's own annotations are untrusted hints and never make a tool
     * retried; a module's (in-process code the operator installed) do.
     */
    idempotent: z.union([z.boolean(), z.array(pattern)]).optional(),
    /**
     * Which of this backend's tools are read-only, so `[prefetch]` may call them before a client asks:
     * `true` (all), tool ids or patterns. An MCP server's own `readOnlyHint` never counts; a module's does.
     */
    read_only: z.union([z.boolean(), z.array(pattern)]).optional(),
    /** Take this MCP server's own annotations at their word (prefetch and retries). Default false. */
    trust_annotations: z.boolean().optional(),
    timeout_ms: z.number().int().positive().optional(),
    /**
     * Pinned tool definitions (see `[server] lock_file`): when a tool's name, title, description, schemas
     * or annotations differ from the lock file, `"warn"` serves the new definition with a warning,
     * `"hold"` withholds the tool (and tools new since the backend was locked) until `toolplane lock
     * --accept`, `"off"` does not check. Default: `"warn"` for MCP backends, `"off"` for modules.
     */
    pin: z.enum(["warn", "hold", "off"]).optional(),

    /** MCP protocol to the server: `"auto"` (default: `server/discover`, else `initialize`), `"2026-07-28"` or `"2025-11-25"`. */
    protocol: z.enum(["auto", "2026-07-28", "2025-11-25"]).optional(),
    /** Accept tasks (the `io.modelcontextprotocol/tasks` extension) from a modern server that advertises them, followed to their result. Default true. */
    tasks: z.boolean().optional(),

    /** OAuth to this Streamable HTTP backend (the gateway as an OAuth 2.1 client); see UpstreamAuthConfig. */
    auth: UpstreamAuthConfig.optional(),
  })
  .superRefine((backend, ctx) => {
    if (backend.auth !== undefined && (backend.mcp === undefined || "command" in backend.mcp))
      ctx.addIssue({ code: "custom", message: '"auth" needs an HTTP "mcp" ({ url })', path: ["auth"] })
    const kinds = [backend.module !== undefined, backend.mcp !== undefined].filter(Boolean).length
    if (kinds !== 1)
      ctx.addIssue({
        code: "custom",
        message: kinds === 0 ? 'needs one of "module" or "mcp"' : 'has both "module" and "mcp"; pick one',
        path: [],
      })
  })

/** @since 0.1.0 */
export const CompositeConfig = z.strictObject({
  name: z.string().min(1, { message: "must not be empty" }),
  description: z.string().optional(),
  tools: z.array(toolId).min(1, { message: "must list at least one target tool" }),
  strategy: z.literal("parallel", { message: 'must be "parallel" (the only strategy)' }).default("parallel"),
  timeout_ms: z.number().int().positive().optional(),
})

/** @since 0.1.0 */
export const LimitsConfig = z.strictObject({
  call_timeout_ms: z.number().int().positive().optional(),
  max_concurrency_per_tool: z.number().int().positive().optional(),
  max_concurrency_per_backend: z.number().int().positive().optional(),
  max_argument_bytes: z.number().int().positive().optional(),
  retries: z.number().int().min(0).max(10).optional(),
  /** How long an MCP backend may take to connect (spawn + initialize + tools/list). Default 30000. */
  connect_timeout_ms: z.number().int().positive().optional(),
  /** Longest wait between reconnection attempts of a backend that was down at start. Default 10000. */
  reconnect_max_delay_ms: z.number().int().positive().optional(),
})

/**
 * `[prefetch]`: speculative prefetch of likely follow-up read-only calls (off unless `enabled`). Over
 * stdio the one client is the one caller; over HTTP only calls with an authenticated client id are
 * prefetched (sessions without one could otherwise share results).
 *
 * @since 0.1.0
 */
export const PrefetchConfig = z.strictObject({
  enabled: z.boolean().default(false),
  /** Use enrichers' declared follow-up links. */
  declared: z.boolean().default(true),
  /** Learn call patterns from each caller's history. */
  learning: z.boolean().default(true),
  min_confidence: z.number().min(0).max(1).optional(),
  min_precision: z.number().min(0).max(1).optional(),
  max_parallel: z.number().int().min(0).optional(),
  per_host: z.number().int().min(0).optional(),
  max_per_call: z.number().int().min(0).optional(),
  ttl_ms: z.number().int().positive().optional(),
  /**
   * The precision budget (on by default): `false` holds back every rule estimated under `min_precision`;
   * `{ floor = 0.25, target = 0.55 }` sets the smallest estimate it pays for and the precision it keeps.
   */
  precision_budget: z
    .union([
      z.boolean(),
      z.strictObject({
        floor: z.number().min(0).max(1).optional(),
        target: z.number().min(0).max(1).optional(),
      }),
    ])
    .optional(),
})

/**
 * `[search] learn_from_use`: in search mode, a `search_tools` query followed by a successful `call_tool` of
 * one of its hits (same caller, within `window_ms`) becomes an intent example of that tool, kept in a JSON
 * file (relative paths resolve against the config file's folder), at most `max_per_tool` per tool.
 *
 * @since 0.1.0
 */
export const LearnFromUseConfig = z.strictObject({
  /** The JSON file of learned examples (created on the first one). */
  file: z.string().min(1),
  /** Examples kept per tool (the oldest goes first). Default 20. */
  max_per_tool: z.number().int().min(1).max(10_000).default(20),
  /** Longest time between the search and the call. Default 600000 (10 minutes). */
  window_ms: z
    .number()
    .int()
    .positive()
    .max(2 ** 31)
    .default(600_000),
  /** Longest query learned, in characters. Default 500. */
  max_query_length: z.number().int().min(1).max(100_000).default(500),
})

/**
 * `[search]`: search mode (`tool_exposure = "search"`) settings.
 *
 * @since 0.1.0
 */
export const SearchConfig = z.strictObject({
  /** Learning intent examples from use (off unless given). */
  learn_from_use: LearnFromUseConfig.optional(),
})

/** What a token scope lets its holder see and call. @since 0.1.0 */
export const ScopeGrantConfig = z.strictObject({
  /** Tool ids or patterns (as served: aliases and composite names included). */
  tools: z.array(pattern).default([]),
  /** Prompt ids `backend/prompt` or patterns. */
  prompts: z.array(pattern).default([]),
  /** Backend names whose resources and templates are visible (`"*"`: all). */
  resources: z.array(z.string().min(1)).default([]),
})

/** HTTP authentication. @since 0.1.0 */
export const AuthConfig = z
  .strictObject({
    /** Static bearer tokens, each read from an environment variable. */
    tokens: z
      .array(
        z.strictObject({
          env: z.string().min(1, { message: "must name the environment variable holding the token" }),
          client: z.string().min(1, { message: "must name the client the token stands for" }),
          scopes: z.array(z.string().min(1)).default([]),
        }),
      )
      .default([]),
    /** OAuth 2.1 resource server: a JWKS URL … */
    jwks_url: z.url({ protocol: /^https?$/, message: "must be an http(s) URL" }).optional(),
    /** … or a JWKS file (relative to the config file). */
    jwks_file: z.string().min(1).optional(),
    issuer: z.string().min(1).optional(),
    audience: z.string().min(1).optional(),
    /** Scopes every token must carry (403 otherwise). */
    required_scopes: z.array(z.string().min(1)).default([]),
    /** Per scope, what its holders may see and call; absent: every valid token sees everything. */
    scopes: z.record(z.string().min(1), ScopeGrantConfig).default({}),
  })
  .superRefine((auth, ctx) => {
    const jwt = auth.jwks_url !== undefined || auth.jwks_file !== undefined
    if (auth.jwks_url !== undefined && auth.jwks_file !== undefined)
      ctx.addIssue({
        code: "custom",
        path: ["jwks_file"],
        message: 'give "jwks_url" or "jwks_file", not both',
      })
    if (jwt && auth.issuer === undefined)
      ctx.addIssue({ code: "custom", path: ["issuer"], message: "JWT validation needs the expected issuer" })
    if (jwt && auth.audience === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["audience"],
        message: "JWT validation needs the expected audience (this gateway's resource URL)",
      })
    if (!jwt && auth.tokens.length === 0)
      ctx.addIssue({
        code: "custom",
        path: [],
        message: 'configure "tokens" (static bearer tokens) or "jwks_url" / "jwks_file" (JWT validation)',
      })
  })

/**
 * Replicas of `toolplane serve` behind a load balancer without sticky sessions: they share the cursor
 * secret (session ids are signed with a key derived from it) and a bus for what one replica must hand
 * another (a client's answer to an elicitation, notifications for a GET stream held elsewhere).
 *
 * @since 0.1.0
 */
export const ReplicasConfig = z.strictObject({
  /** The shared bus: PostgreSQL `LISTEN`/`NOTIFY`. */
  bus: z.enum(["postgres"]).default("postgres"),
  /** Environment variable holding the bus's connection string (`postgres://…`). */
  url_env: z.string().min(1).default("TOOLPLANE_BUS_URL"),
  /** The `LISTEN` channel; replicas of one deployment use the same one. */
  channel: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,40}$/, "lowercase letters, digits and underscores")
    .default("toolplane"),
})

/**
 * Calls held open while a 2026-07-28 client answers the questions a backend asks mid-call (the upstream
 * call is resumed with the answers, never re-run). Defaults: 300 000 ms, 16, 1000, 3000 ms.
 *
 * @since 0.2.0
 */
export const HeldCallsConfig = z.strictObject({
  /** How long a held call waits for its answers; then it is cancelled upstream. */
  timeout_ms: z.number().int().positive().optional(),
  /** Held calls per caller at once (without auth, all clients are one caller). */
  max_per_caller: z.number().int().positive().optional(),
  /** Held calls per replica at once. */
  max: z.number().int().positive().optional(),
  /** How long a replica forwarding a retry waits for the holding replica (and between its heartbeats). */
  forward_timeout_ms: z.number().int().positive().optional(),
})

/** @since 0.1.0 */
export const ServerConfig = z.strictObject({
  name: z.string().default("toolplane"),
  transport: z.enum(["stdio", "http"]).default("stdio"),
  host: z.string().default("127.0.0.1"),
  port: z.number().int().min(0).max(65535).default(8808),
  page_size: z.number().int().min(1).max(1000).default(100),
  /** How tool ids appear as MCP tool names: `namespace.name` (default), the bare `name`, or the `namespace/name` id. */
  tool_names: z.enum(["dotted", "name", "id"]).default("dotted"),
  /** HTTP authentication; required to serve a non-loopback address. */
  auth: AuthConfig.optional(),
  /**
   * The Streamable HTTP transport: `node` (default), the lean one with every request parsed by node:http;
   * `raw` (opt-in), the same behind a node:net edge that parses the plain POSTs of tool calls itself and
   * hands everything else to node:http; or `sdk`, the MCP SDK's (one process only).
   */
  http_transport: z.enum(["raw", "node", "sdk"]).default("node"),
  /** HTTP sessions: idle time after which one is over (one replica), and the lifetime of a session id. */
  session_idle_ms: z.number().int().positive().optional(),
  session_max_age_ms: z.number().int().positive().optional(),
  /** Run as one of several replicas sharing a bus (see {@link ReplicasConfig}). */
  replicas: ReplicasConfig.optional(),
  /** Calls held open while a 2026-07-28 client answers a backend's questions (see {@link HeldCallsConfig}). */
  held_calls: HeldCallsConfig.optional(),
  /** The lock file of pinned tool definitions, relative to the config file. Default: `<config name>.lock.json`. */
  lock_file: z.string().min(1).optional(),

  /**
   * Cache hints for 2026-07-28 clients (since 0.3.0): how long listings (`list_ttl_ms`) and resource
   * reads (`read_ttl_ms`) may be reused, and `cache_scope` (`auto`: `private` when the request was
   * authenticated, since its scopes may filter the result).
   */
  cache: z
    .strictObject({
      list_ttl_ms: z.number().int().min(0).default(30_000),
      read_ttl_ms: z.number().int().min(0).default(0),
      cache_scope: z.enum(["auto", "public", "private"]).default("auto"),
    })
    .optional(),
})

/** @since 0.1.0 */
export const CursorConfig = z.strictObject({
  /** Environment variable holding the cursor secret. */
  secret_env: z.string().default("TOOLPLANE_CURSOR_SECRET"),
  ttl_seconds: z.number().int().positive().default(900),
})

/**
 * Code mode (`tool_exposure = "code"`): limits of each program a client runs with `execute_code`.
 *
 * @since 0.1.0
 */
export const CodeConfig = z.strictObject({
  /** Wall-clock budget of one program, its tool calls included. */
  timeout_ms: z.number().int().positive().max(600_000).default(30_000),
  /** Memory cap of the sandbox engine, in MiB. */
  memory_mb: z.number().int().min(8).max(1024).default(64),
  /** Most tool calls one program may make. */
  max_tool_calls: z.number().int().positive().default(200),
  /** Cap on a program's result plus console output, in bytes. */
  max_output_bytes: z.number().int().positive().default(1_048_576),
  /** Budget of time a program spends running (waiting for tool calls excluded); default: none. */
  cpu_time_ms: z.number().int().positive().optional(),
  /** Programs running at once (one worker thread each). */
  max_programs: z.number().int().min(1).max(64).default(2),
  /** Programs one caller (token; without authentication, session) runs at once; default: half of `max_programs`, rounded up. */
  max_programs_per_caller: z.number().int().min(1).max(64).optional(),
  /** Programs one caller may have waiting for a free sandbox (waiting counts against `timeout_ms`); one more is refused at once. */
  max_queued_per_caller: z.number().int().min(0).max(1000).default(8),
  /** Cap on one tool call's arguments inside a program, in bytes of their JSON. */
  max_argument_bytes: z.number().int().positive().default(1_048_576),
})

/**
 * Durable skills declared in the configuration: `[durable]` (the run store) and `[[skills]]` (each served
 * as the tool `skill/<name>`, run durably: steps that are not read-only wait for approval, decided through
 * the caller's elicitation or `toolplane runs approve`).
 *
 * @since 0.1.0
 */
export const DurableConfig = z.strictObject({
  /** SQLite file (relative to the config file) or `postgres://` URL; default `toolplane-runs.db` next to the config, as `toolplane runs`. */
  store: z.string().min(1).default("toolplane-runs.db"),
})
/** @since 0.1.0 */
export const SkillConfig = z.strictObject({
  name: z
    .string()
    .regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/, "must be a tool name (letters, digits, _ . -)"),
  description: z.string().optional(),
  /** JSON Schema of the skill's arguments (read in steps with `{ "$ref" = "$input#/field" }`). */
  input_schema: z.record(z.string(), z.unknown()).optional(),
  steps: z
    .array(
      z.strictObject({
        id: z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, "a letter or _, then letters, digits, _ or -"),
        tool: toolId,
        inputs: z.record(z.string(), z.unknown()).default({}),
        depends_on: z.array(z.string()).optional(),
      }),
    )
    .min(1, { message: "a skill needs at least one step" }),
  /** The step whose result is the skill's result (default: the last one). */
  output: z.string().optional(),
})

/**
 * Operating `toolplane serve`: the operator log (`[log]`), the Prometheus endpoint (`[metrics]`, off
 * unless `listen` or `path` is set) and the audit log (`[audit]`, off unless `file` is set).
 *
 * @since 0.1.0
 */
export const LogConfig = z.strictObject({
  format: z.enum(["text", "json"]).default("text"),
  level: z.enum(["debug", "info", "warn", "error"]).default("info"),
  /** One line per completed call (otherwise only failures of interest are logged). */
  calls: z.boolean().default(false),
})
/** @since 0.1.0 */
export const MetricsConfig = z
  .strictObject({
    /** A listener of its own, `host:port` (e.g. `"127.0.0.1:9464"`). */
    listen: z
      .string()
      .regex(/^(\[[0-9a-fA-F:.]+\]|[^\s:]+):\d{1,5}$/, { message: 'must be "host:port"' })
      .optional(),
    /** Or a path on the main HTTP server (e.g. `"/metrics"`; behind `[server.auth]` when configured). */
    path: z
      .string()
      .regex(/^\/[^\s?#]*$/, { message: 'must be a path starting with "/"' })
      .optional(),
    /** Distinct tool label values kept; calls of further tools are counted under `tool="other"`. */
    max_tools: z.number().int().min(1).max(100_000).default(500),
  })
  .refine((m) => !(m.listen !== undefined && m.path !== undefined), {
    message: "set listen or path, not both",
  })
/** @since 0.1.0 */
export const AuditConfig = z.strictObject({
  /** The JSON-lines file (relative to the config file); unset: no audit log. */
  file: z.string().min(1).optional(),
  /** Rotate when the file would grow past this many bytes (to `file.1`, `file.2`, …). */
  max_bytes: z
    .number()
    .int()
    .min(4096)
    .default(10 * 1024 * 1024),
  /** Rotated files kept. */
  keep: z.number().int().min(0).max(1000).default(5),
  /** Environment variable with the HMAC key of argument and result hashes (16+ characters). */
  key_env: z.string().default("TOOLPLANE_AUDIT_KEY"),
  /** Tool ids or patterns whose arguments and results are recorded in clear. */
  clear: z.array(pattern).default([]),
  /** fsync each record (survives a power loss; each record is written before the call answers anyway). */
  fsync: z.boolean().default(false),
  /** `"file"` (the JSON-lines `file`) or `"store"` (the table `toolplane_audit` of `[durable] store`). */
  sink: z.enum(["file", "store"]).default("file"),
})

/**
 * `[console]`: the web console of `toolplane serve` (off unless `enabled`), on its own listener.
 *
 * @since 0.1.0
 */
export const ConsoleConfig = z.strictObject({
  enabled: z.boolean().default(false),
  /** `host:port` of the console's listener (default `127.0.0.1:8809`); a non-loopback host needs `[server.auth]`. */
  listen: z
    .string()
    .regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.:-]+):\d{1,5}$/, "must be host:port")
    .optional(),
  /** Or a path of the main HTTP server (e.g. `"/console"`; not with `listen`). @since 0.2.0 */
  path: z
    .string()
    .regex(/^\/[^\s?#]*[^\s?#/]$/, { message: 'must be a path starting with "/", not ending with "/"' })
    .optional(),
  /** Scope a token needs to read the console (when `[server.auth]` is set). */
  read_scope: z.string().min(1).default("toolplane:admin"),
  /** Scope a token needs to approve or reject (when `[server.auth]` is set). */
  action_scope: z.string().min(1).default("toolplane:approve"),
  /**
   * The durable run store whose pending approvals are shown: a SQLite file (relative to the config file)
   * or a postgres:// URL. Default: `[durable] store` when `[[skills]]` are declared.
   */
  runs: z.string().min(1).optional(),
})

/** @since 0.1.0 */
export const GatewayConfig = z
  .strictObject({
    server: ServerConfig.prefault({}),
    cursor: CursorConfig.prefault({}),
    tool_exposure: z.enum(["all", "search", "code"]).default("all"),
    code: CodeConfig.prefault({}),
    search: SearchConfig.prefault({}),
    backends: z.array(BackendConfig).min(1, { message: "configure at least one backend" }),
    aliases: z.record(toolId, toolId).default({}),
    composite_tools: z.array(CompositeConfig).default([]),
    limits: LimitsConfig.prefault({}),
    prefetch: PrefetchConfig.prefault({}),
    durable: DurableConfig.prefault({}),
    skills: z.array(SkillConfig).default([]),
    log: LogConfig.prefault({}),
    metrics: MetricsConfig.optional(),
    audit: AuditConfig.prefault({}),
    console: ConsoleConfig.prefault({}),
  })
  .superRefine((config, ctx) => {
    if (config.search.learn_from_use !== undefined && config.tool_exposure !== "search")
      ctx.addIssue({
        code: "custom",
        path: ["search", "learn_from_use"],
        message: `learns from search_tools queries: needs tool_exposure = "search" (is "${config.tool_exposure}")`,
      })
    const seen = new Map<string, number>()
    config.backends.forEach((b, i) => {
      const first = seen.get(b.name)
      if (first !== undefined)
        ctx.addIssue({
          code: "custom",
          path: ["backends", i, "name"],
          message: `duplicate backend name "${b.name}" (also backends[${first}])`,
        })
      else seen.set(b.name, i)
    })
    const composites = new Map<string, number>()
    config.composite_tools.forEach((c, i) => {
      const first = composites.get(c.name)
      if (first !== undefined)
        ctx.addIssue({
          code: "custom",
          path: ["composite_tools", i, "name"],
          message: `duplicate composite tool name "${c.name}" (also composite_tools[${first}])`,
        })
      else composites.set(c.name, i)
    })
  })

/**
 * A validated configuration.
 *
 * @since 0.1.0
 */
export type GatewayConfig = z.output<typeof GatewayConfig>
/** @since 0.1.0 */
export type BackendConfig = z.output<typeof BackendConfig>
/** @since 0.1.0 */
export type AuthConfig = z.output<typeof AuthConfig>
/** @since 0.1.0 */
export type UpstreamAuthConfig = z.output<typeof UpstreamAuthConfig>
