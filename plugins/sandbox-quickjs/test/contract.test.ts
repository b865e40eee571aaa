import { sandboxContract } from "@toolplane/exec/testing"
import { quickJsSandbox } from "../src/index.js"

sandboxContract("quickjs", () => quickJsSandbox({ maxWorkers: 2, warmWorkers: 1 }))
