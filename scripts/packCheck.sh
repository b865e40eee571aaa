#!/usr/bin/env bash
# "Install one package and use it", as a user outside this repository would: packs every publishable
# package (after `pnpm build`), installs a chosen few from the tarballs into a scratch project in a temp
# directory outside the workspace (no workspace links: @toolplane/* come from the tarballs, third-party
# dependencies from the npm registry), typechecks the scratch project in strict mode with NodeNext
# resolution (the published `exports`/`types`, not the source condition) and runs it; then does the same for
# every complete program of the documentation (```ts run blocks, see scripts/docExamples.ts). skipLibCheck stays
# on, as in most projects: effect 4's own declarations name the DOM's CryptoKey, which @types/node lacks.
#
#   bash scripts/packCheck.sh            (run by .ci/run after the build)
#   PACK_CHECK_KEEP=1 bash scripts/packCheck.sh   keeps the scratch directory
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
started=$SECONDS

scratch="$(mktemp -d "${TMPDIR:-/tmp}/toolplane-pack-check-XXXXXX")"
cleanup() { if [ -z "${PACK_CHECK_KEEP:-}" ]; then rm -rf "$scratch"; else echo "pack-check: kept $scratch"; fi; }
trap cleanup EXIT
mkdir -p "$scratch/tarballs" "$scratch/app/src"

# 1. pack every publishable package (pnpm pack rewrites workspace: ranges to real versions)
overrides=""
for dir in packages/* plugins/*; do
  [ -f "$dir/package.json" ] || continue
  if node -e 'process.exit(require(process.argv[1]).private ? 0 : 1)' "$root/$dir/package.json"; then continue; fi
  [ -d "$dir/dist" ] || { echo "pack-check: $dir/dist is missing; run pnpm build first" >&2; exit 1; }
  name="$(node -p 'require(process.argv[1]).name' "$root/$dir/package.json")"
  tarball="$(cd "$dir" && pnpm pack --pack-destination "$scratch/tarballs" 2>/dev/null | grep '\.tgz$' | tail -1)"
  tarball="$scratch/tarballs/$(basename "$tarball")"
  [ -f "$tarball" ] || { echo "pack-check: packing $name produced no tarball" >&2; exit 1; }
  if tar -xzOf "$tarball" package/package.json | grep -q '"workspace:'; then
    echo "pack-check: $name's packed package.json still has a workspace: range" >&2
    exit 1
  fi
  if tar -tzf "$tarball" | grep -qE '^package/(test|bench|node_modules)/'; then
    echo "pack-check: $name's tarball contains test/, bench/ or node_modules/" >&2
    exit 1
  fi
  overrides="$overrides\"$name\": \"file:$tarball\","
  echo "pack-check: packed $name ($(du -k "$tarball" | cut -f1) kB)"
done

# 2. a scratch project that depends on three packages from their tarballs (every @toolplane package is
#    overridden to its tarball, so transitive ones never come from the registry)
cd "$scratch/app"
tgz() { node -e 'const o = JSON.parse(process.argv[1]); console.log(o[process.argv[2]])' "{${overrides%,}}" "$1"; }
foundation="$(tgz @toolplane/foundation)"
exec_="$(tgz @toolplane/exec)"
local_="$(tgz @toolplane/plugin-local)"
typescript="$(node -p 'require(process.argv[1]).version' "$root/node_modules/typescript/package.json")"
cat > package.json <<JSON
{
  "name": "toolplane-pack-check",
  "private": true,
  "type": "module",
  "dependencies": {
    "@toolplane/foundation": "$foundation",
    "@toolplane/exec": "$exec_",
    "@toolplane/plugin-local": "$local_",
    "zod": "^4.6.7"
  },
  "devDependencies": {
    "typescript": "$typescript",
    "@types/node": "^24.0.0"
  },
  "overrides": { ${overrides%,} }
}
JSON
cat > tsconfig.json <<'JSON'
{
  "compilerOptions": {
    "target": "ES2023",
    "lib": ["ES2023"],
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "strict": true,
    "noUncheckedIndexedAccess": true,
    "exactOptionalPropertyTypes": true,
    "verbatimModuleSyntax": true,
    "skipLibCheck": true,
    "types": ["node"],
    "rootDir": "src",
    "outDir": "dist"
  },
  "include": ["src"]
}
JSON
cat > src/main.ts <<'TS'
import { createRunner } from "@toolplane/exec"
import { defineTool, InvalidArguments } from "@toolplane/foundation"
import { localBackend } from "@toolplane/plugin-local"
import { z } from "zod"

const weather = defineTool({
  id: "weather/current",
  description: "Current weather for a city",
  input: z.object({ city: z.string().min(2) }),
  annotations: { readOnlyHint: true },
  handler: async ({ city }) => ({ city, temp: 21 }),
})

const runner = createRunner({ backends: [localBackend([weather], { approval: "never" })] })
const { tools } = await runner.listTools()
const result = await runner.callTool({ name: "weather/current", arguments: { city: "Oslo" } })
let rejected = ""
try {
  await runner.callTool({ name: "weather/current", arguments: { city: "O" } })
} catch (error) {
  if (error instanceof InvalidArguments) rejected = error._tag
}
await runner.close()
const out = { tools: tools.map((t) => t.id), result: result.structuredContent, rejected }
console.log(JSON.stringify(out))
if (JSON.stringify(out) !== '{"tools":["weather/current"],"result":{"city":"Oslo","temp":21},"rejected":"InvalidArguments"}')
  process.exit(1)
TS

echo "pack-check: installing into $scratch/app (npm, from the tarballs and the registry)"
npm install --no-audit --no-fund --loglevel=error >npm-install.log 2>&1 || { cat npm-install.log >&2; exit 1; }
for name in @toolplane/foundation @toolplane/exec @toolplane/plugin-local; do
  [ -L "node_modules/$name" ] && { echo "pack-check: $name is a link, not an installed copy" >&2; exit 1; }
  [ -f "node_modules/$name/dist/index.js" ] || { echo "pack-check: $name has no dist/index.js" >&2; exit 1; }
done

echo "pack-check: typechecking (strict, NodeNext)"
node_modules/.bin/tsc -p tsconfig.json
echo "pack-check: running"
node dist/main.js

# 3. the documentation's complete programs (```ts run blocks in the READMEs and docs/), as a user would
#    paste them into a fresh app: every @toolplane package from its tarball, third-party imports from the
#    registry at the workspace's versions; typechecked strictly, run, and their output compared with the
#    ```text block that follows them, if any
examples="$scratch/examples"
mkdir -p "$examples/src"
"$root/node_modules/.bin/tsx" "$root/scripts/docExamples.ts" --emit-runnable "$examples/src"
cd "$examples"
node - "$root" "{${overrides%,}}" "$typescript" <<'NODE'
const { existsSync, readFileSync, writeFileSync } = require("node:fs")
const { join } = require("node:path")
const [root, overridesJson, typescript] = process.argv.slice(2)
const overrides = JSON.parse(overridesJson)
const manifest = JSON.parse(readFileSync("src/manifest.json", "utf8"))
/** The version the workspace uses of a third-party package (from any package's node_modules). */
const workspaceVersion = (name) => {
  for (const dir of ["", "packages/cli/", "packages/foundation/", "packages/exec/", "packages/durable/", "plugins/mcp/"]) {
    const file = join(root, dir, "node_modules", name, "package.json")
    if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8")).version
  }
  throw new Error(`pack-check: a documentation example imports ${name}, which no workspace package depends on`)
}
const dependencies = {}
for (const example of manifest)
  for (const name of example.imports) dependencies[name] = overrides[name] ?? workspaceVersion(name)
writeFileSync(
  "package.json",
  JSON.stringify(
    {
      name: "toolplane-doc-examples",
      private: true,
      type: "module",
      dependencies,
      devDependencies: { typescript, "@types/node": "^24.0.0" },
      overrides,
    },
    null,
    2,
  ),
)
NODE
cp "$scratch/app/tsconfig.json" tsconfig.json
echo "pack-check: installing the documentation's programs' dependencies"
npm install --no-audit --no-fund --loglevel=error >npm-install.log 2>&1 || { cat npm-install.log >&2; exit 1; }
echo "pack-check: typechecking the documentation's programs (strict, exactOptionalPropertyTypes, NodeNext)"
node_modules/.bin/tsc -p tsconfig.json
echo "pack-check: running the documentation's programs"
failed=0
for name in $(node -p 'require("./src/manifest.json").map((e) => e.name).join(" ")'); do
  where="$(node -p 'const e = require("./src/manifest.json").find((e) => e.name === process.argv[1]); e.source + ":" + e.line' "$name")"
  cwd="$(mktemp -d "$examples/run-XXXXXX")"
  if ! (cd "$cwd" && timeout 120 node "$examples/dist/$name.js" >"$examples/$name.out" 2>"$examples/$name.err"); then
    echo "pack-check: $where failed:" >&2
    tail -20 "$examples/$name.err" >&2
    failed=1
    continue
  fi
  if ! "$root/node_modules/.bin/tsx" "$root/scripts/docExamples.ts" --check-output src/manifest.json "$name" "$examples/$name.out"; then
    echo "pack-check: $where printed something else than its text block" >&2
    failed=1
    continue
  fi
  echo "pack-check: ran $where"
done
[ "$failed" = 0 ] || exit 1
echo "pack-check: ok ($((SECONDS - started)) s)"
