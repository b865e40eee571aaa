/**
 * Placeholders the documentation's examples may use without defining them (scripts/docExamples.ts): the
 * things a README defines in an earlier block or a TSDoc fragment takes from its surroundings. Everything
 * else an example uses it must import (README blocks) or its package must export (TSDoc fragments).
 */

import type { Skill, SkillPlan, Toolset } from "@toolplane/compose"
import type { ToolIndex } from "@toolplane/discovery"
import type { ToolRunner } from "@toolplane/exec"
import type {
  Backend,
  CursorCodec,
  Middleware,
  Tool,
  ToolDefinition,
  ToolService,
} from "@toolplane/foundation"
import type OpenAI from "openai"

declare global {
  /** Any tool service (a runner, a gateway stack, an MCP client's view). */
  const service: ToolService
  /** A runner from `createRunner`. */
  const runner: ToolRunner
  /** A runner's backend registry. */
  const registry: ToolRunner["registry"]
  /** One tool, and a list of tools. */
  const tool: Tool
  const tools: readonly Tool[]
  /** A tool definition from `defineTool` (the weather tool of the quickstart). */
  const weather: ToolDefinition<{ city: string }>
  /** A second tool definition (adds two numbers). */
  const add: ToolDefinition<{ a: number; b: number }>
  /** A discovery index over some tools. */
  const index: ToolIndex<Tool>
  /** A cursor codec from `makeCursorCodec`. */
  const codec: CursorCodec
  /** A function that builds the backend under test. */
  const myBackend: () => Backend
  /** Discovery's search-mode middleware. */
  const discoverySearchMode: Middleware
  /** A toolset from `toolset(...).build()`. */
  const github: Toolset
  /** A skill from `defineSkill`. */
  const research: Skill
  /** Searches a log store (the backing call of a paginated tool). */
  function searchLogs(q: string, offset: number, limit: number): Promise<unknown[]>
  /** A skill plan from `makePlanner(...).plan(skill)`. */
  const plan: SkillPlan
  /** An OpenAI client, a model name and a conversation. */
  const client: OpenAI
  const model: string
  const messages: OpenAI.Chat.ChatCompletionMessageParam[]
  /** A path to a git checkout. */
  const repo: string
  /** Asks the user a yes/no question. */
  function confirm(question: string): Promise<boolean>
}
