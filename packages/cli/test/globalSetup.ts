/**
 * Vitest global setup of the CLI tests: `Bin.test.ts` spawns the shipped bin,
 * which runs the bundled, compiled `dist/precis.mjs`, so the package is built
 * (and bundled) first. Both steps are incremental: when `dist/` is up to date
 * they only check and return.
 */
import { execFileSync } from "node:child_process"
import { createRequire } from "node:module"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

/** Builds `@precis/cli` and the packages it references into their `dist/`, then bundles the bin. */
export default function setup(): void {
  const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")
  execFileSync(process.execPath, [tsc, "-b", path.join(packageDir, "tsconfig.src.json")], { stdio: "inherit" })
  execFileSync(process.execPath, [path.join(packageDir, "scripts", "bundle.mjs")], { stdio: "inherit" })
}
