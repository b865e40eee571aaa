import { defineTool, makeTool, type Tool, type ToolDefinition } from "@toolplane/foundation"
import { z } from "zod"

export const echo = (id: string, extra: Partial<Omit<Tool, "id">> = {}): ToolDefinition<any> =>
  defineTool({
    id,
    input: { type: "object", properties: { text: { type: "string" } } },
    ...(extra as object),
    handler: (args: Record<string, unknown>) => ({ tool: id, args }),
  })

export const tools = {
  search: defineTool({
    id: "github/search",
    tags: ["read"],
    annotations: { readOnlyHint: true },
    input: z.object({ q: z.string() }),
    handler: ({ q }) => ({ tool: "github/search", q, items: [{ url: `https://x/${q}` }] }),
  }),
  createIssue: defineTool({
    id: "github/create_issue",
    tags: ["write"],
    annotations: { destructiveHint: false },
    input: z.object({ title: z.string(), token: z.string(), repo: z.string() }),
    handler: ({ title, repo, token }) => ({ tool: "github/create_issue", title, repo, token }),
  }),
  deleteRepo: defineTool({
    id: "github/delete_repo",
    tags: ["admin", "write"],
    annotations: { destructiveHint: true },
    input: z.object({ repo: z.string() }),
    handler: ({ repo }) => ({ deleted: repo }),
  }),
  docsSearch: defineTool({
    id: "docs/search",
    tags: ["read"],
    category: "docs",
    annotations: { readOnlyHint: true },
    input: z.object({ q: z.string() }),
    handler: ({ q }) => ({ tool: "docs/search", q }),
  }),
  jiraGet: defineTool({
    id: "jira/get_issue",
    tags: ["read"],
    metadata: { scopes: ["jira:read"] },
    input: z.object({ key: z.string() }),
    handler: ({ key }) => ({ key }),
  }),
  fail: defineTool({
    id: "flaky/fail",
    input: z.object({ q: z.string().optional() }),
    handler: () => {
      throw new Error("backend exploded")
    },
  }),
}

export const allDefinitions: ToolDefinition<any>[] = Object.values(tools)

export const plainTool = (id: string, extra: Partial<Omit<Tool, "id">> = {}): Tool =>
  makeTool({ id, ...extra } as never)
