/**
 * The tool arguments the validator benchmarks validate: a small and a nested zod schema, each with valid
 * and invalid arguments. `key` is a top-level property the prototype-name benchmark renames.
 */
import { z } from "zod"

export const small = z.object({ city: z.string().min(2), units: z.enum(["c", "f"]).default("c") })
export const nested = z.object({
  query: z.string(),
  filters: z
    .array(
      z.object({
        field: z.string(),
        op: z.enum(["eq", "lt", "gt"]),
        value: z.union([z.string(), z.number()]),
      }),
    )
    .max(20),
  page: z.object({ size: z.number().int().min(1).max(100), after: z.string().optional() }),
  tags: z.array(z.string()).optional(),
})

export const argumentCases = [
  {
    name: "small",
    schema: small,
    key: "city",
    valid: { city: "Oslo", units: "c" } as Record<string, unknown>,
    invalid: { city: "O", units: "k" } as Record<string, unknown>,
  },
  {
    name: "nested",
    schema: nested,
    key: "query",
    valid: {
      query: "open issues",
      filters: Array.from({ length: 8 }, (_, i) => ({ field: `f${i}`, op: "eq", value: i })),
      page: { size: 50 },
      tags: ["a", "b"],
    } as Record<string, unknown>,
    invalid: { query: 1, filters: [{ field: "x", op: "ne", value: true }], page: { size: 0 } } as Record<
      string,
      unknown
    >,
  },
]
