/**
 * Vitest global setup of the CLI tests: `Bin.test.ts` spawns the shipped bin,
 * which runs the compiled `dist/`, so the package is built first. `tsc -b` is
 * incremental: when `dist/` is up to date it only checks and returns.
 */
import { execFileSync } from "node:child_process"
import { createRequire } from "node:module"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

/** Builds `@precis/cli` and the packages it references into their `dist/`. */
export default function setup(): void {
  const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")
  execFileSync(process.execPath, [tsc, "-b", path.join(packageDir, "tsconfig.src.json")], { stdio: "inherit" })
}
