import { packageBuild } from "../../tsup.base.js"

export default packageBuild({ entry: ["src/index.ts", "src/main.ts"], dts: { entry: "src/index.ts" } })
