/**
 * In-process tools for the example gateway: a module backend is any ES module whose exports include
 * `defineTool` definitions (single exports or arrays).
 */
import { defineTool } from "@toolplane/foundation"
import { z } from "zod"

export const echo = defineTool({
  id: "notes/echo",
  description: "Echoes back the message, prefixed with the notes service name",
  input: z.object({ message: z.string().describe("Text to echo back") }),
  annotations: { readOnlyHint: true, idempotentHint: true },
  handler: ({ message }) => `notes echo: ${message}`,
})

export const wordCount = defineTool({
  id: "text/word_count",
  title: "Word count",
  description: "Counts the words, lines and characters of a text",
  input: z.object({ text: z.string() }),
  output: z.object({ words: z.number(), lines: z.number(), characters: z.number() }),
  annotations: { readOnlyHint: true, idempotentHint: true },
  tags: ["text", "analysis"],
  intents: ["how many words are in this paragraph", "count the lines of a document"],
  handler: ({ text }) => ({
    words: text.split(/\s+/).filter(Boolean).length,
    lines: text.split("\n").length,
    characters: text.length,
  }),
})

export const weather = defineTool({
  id: "weather/current",
  description: "Current weather for a city (deterministic demo data)",
  input: z.object({ city: z.string().min(2), units: z.enum(["c", "f"]).default("c") }),
  annotations: { readOnlyHint: true, openWorldHint: true },
  tags: ["weather"],
  intents: ["what's the temperature in Paris", "is it cold in Oslo today"],
  handler: ({ city, units }) => {
    const celsius = 10 + ([...city].reduce((sum, ch) => sum + ch.charCodeAt(0), 0) % 20)
    return { city, units, temperature: units === "c" ? celsius : Math.round(celsius * 1.8 + 32) }
  },
})
