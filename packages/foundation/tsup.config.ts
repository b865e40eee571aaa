import { packageBuild } from "../../tsup.base.js"

export default packageBuild({
  entry: ["src/index.ts", "src/testing/index.ts", "src/testing/fixtures.ts"],
  external: ["vitest"],
})
