import { packageBuild } from "../../tsup.base.js"

export default packageBuild({ external: ["@anthropic-ai/sdk"] })
