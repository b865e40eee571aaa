import { packageBuild } from "../../tsup.base.js"

export default packageBuild({ external: ["@langchain/core", /^@langchain\/core\//] })
