import { makeTool } from "@toolplane/foundation"
import { adapterContract } from "@toolplane/foundation/testing"
import { mcpAdapter } from "../src/index.js"

const echo = makeTool({
  id: "demo/echo",
  description: "Echoes the text",
  inputSchema: {
    type: "object",
    properties: { text: { type: "string", format: "uri" } },
    required: ["text"],
  },
  annotations: { readOnlyHint: true },
})
const tagged = makeTool({
  id: "demo/tagged",
  tags: ["beta"],
  category: "demo",
  inputSchema: { type: "object" },
})

adapterContract("mcpAdapter", () => mcpAdapter(), { tools: [echo, tagged] })

adapterContract("mcpAdapter without extensions", () => mcpAdapter({ extensions: false }), {
  tools: [echo],
  lossy: [{ tool: tagged, feature: "tags" }],
  roundTrip: false, // without the _meta extension the canonical id does not travel
})
