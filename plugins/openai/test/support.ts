/**
 * The testkit's stub service (as the service itself, with its calls) and plain tools (no chart: these
 * tests count the text-only set).
 */
import type { ToolDefinition, ToolService } from "@toolplane/foundation"
import { stubService, stubTools } from "@toolplane/testkit"

export const serviceOf = (
  definitions: readonly ToolDefinition<any>[],
  options: { readonly needsApproval?: readonly string[]; readonly pageSize?: number } = {},
): ToolService & { calls: { name: string; arguments: unknown }[] } => {
  const { service, calls } = stubService(definitions, options)
  return { ...service, calls }
}

export const { weather, add, explode, deploy } = stubTools
export const allDefinitions = [weather, add, explode, deploy]
export const testService = () => serviceOf(allDefinitions, { needsApproval: ["ops/deploy"] })
