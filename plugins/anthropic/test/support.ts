/** The testkit's stub service and plain tools (chart included: Anthropic takes images in tool results). */
import { stubService, stubTools } from "@toolplane/testkit"

export { PNG, stubService as serviceOf } from "@toolplane/testkit"

export const allDefinitions = Object.values(stubTools)
export const testService = () => stubService(allDefinitions, { needsApproval: ["ops/deploy"] })
