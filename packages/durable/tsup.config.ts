import { packageBuild } from "../../tsup.base.js"

// `node:sqlite` exists only with its `node:` prefix: keep the prefix on builtin imports.
export default packageBuild({ removeNodeProtocol: false })
