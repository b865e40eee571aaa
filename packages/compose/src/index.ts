/**
 * @toolplane/compose: toolsets, exposure, skills and the gateway middleware.
 *
 * @packageDocumentation
 * @since 0.1.0
 */
export * from "./exposure.js"
export * from "./gatewayStack.js"
export type { ListingOptions, ToolListChanges } from "./internal/listing.js"
export * from "./middleware/alias.js"
export * from "./middleware/argumentOverrides.js"
export * from "./middleware/capabilityFilter.js"
export * from "./middleware/codeMode.js"
export * from "./middleware/composite.js"
export * from "./middleware/searchMode.js"
export * from "./middleware/validation.js"
export * from "./middleware/virtualTools.js"
export * from "./skill/errors.js"
export * from "./skill/execute.js"
export * from "./skill/guards.js"
export * from "./skill/planner.js"
export * from "./skill/references.js"
export { defineSkill, type Skill, type SkillStep } from "./skill/Skill.js"
export * from "./skill/skillTool.js"
export * from "./toolset/builder.js"
export * from "./toolset/filters.js"
export * from "./toolset/policies.js"
export * from "./toolset/selection.js"
export * from "./toolset/Toolset.js"
