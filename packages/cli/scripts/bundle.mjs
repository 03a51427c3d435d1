// Bundles the compiled CLI (`dist/bin.js` and everything it imports, effect included) into one
// file, `dist/precis.mjs`, which the `precis` bin runs: Node then reads one file instead of ~700
// modules, and `precis --help` starts several times faster (see `pnpm bench startup`).
// better-sqlite3 stays external: it loads a native addon. Skips the work when the bundle is newer
// than every input it was built from (esbuild's metafile lists them).
import * as esbuild from "esbuild"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const entry = path.join(packageDir, "dist", "bin.js")
const outfile = path.join(packageDir, "dist", "precis.mjs")
const metafile = path.join(packageDir, "dist", "precis.meta.json")

const upToDate = () => {
  if (!fs.existsSync(outfile) || !fs.existsSync(metafile)) return false
  const built = fs.statSync(outfile).mtimeMs
  const inputs = Object.keys(JSON.parse(fs.readFileSync(metafile, "utf8")).inputs)
  return inputs.every((input) => {
    const file = path.resolve(packageDir, input)
    return fs.existsSync(file) && fs.statSync(file).mtimeMs <= built
  })
}

if (!fs.existsSync(entry)) {
  console.error(`bundle: ${entry} is missing: run tsc -b packages/cli/tsconfig.src.json first`)
  process.exit(1)
}
if (!upToDate()) {
  const result = await esbuild.build({
    entryPoints: [entry],
    outfile,
    absWorkingDir: packageDir,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    minify: true,
    sourcemap: "linked",
    metafile: true,
    external: ["better-sqlite3"],
    // jsonc-parser's `main` is a UMD build whose `require("./impl/…")` a bundle cannot follow; its ES build can be.
    mainFields: ["module", "main"],
    // Bundled CommonJS dependencies call `require`; an ES module has none of its own.
    banner: { js: "import { createRequire as __precisRequire } from \"node:module\"; const require = __precisRequire(import.meta.url);" },
    logLevel: "warning"
  })
  fs.writeFileSync(metafile, JSON.stringify(result.metafile))
}
