// The quoted command output of the README and the docs, from real runs of the shipped bin
// (`bin/precis.js`, built): `pnpm demo`'s output (README.md), and the Condenser's figures on the
// example session (docs/context.md). Each quote sits in its file (`files`) between
// `<!-- generated: NAME -->` and `<!-- /generated -->`; ids are shortened to their first 8
// characters (they are random UUIDs), nothing else is changed; a quote that differs from a run only
// in its ids is left as it is.
//
//   node packages/cli/scripts/readme.mjs           rewrites the quotes in their files (`pnpm readme`)
//   node packages/cli/scripts/readme.mjs --check   exits 1 when a quote differs from a real run
//
// `test/Readme.test.ts` checks the quotes the same way.
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..")
const bin = path.join(repoRoot, "packages", "cli", "bin", "precis.js")
const example = "examples/coding-session.jsonl"
/** `pnpm demo`'s flags (the root package.json). */
const demoFlags = ["--leaf-chunk-tokens", "2000"]

/** A random id (UUID) shortened to its first 8 characters, as the README quotes it. */
export const shortenIds = (text) => text.replace(/\b([0-9a-f]{8})-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, "$1…")

/** A shortened id as `<id>…`: what differs between two runs, and only that. */
export const maskIds = (text) => text.replace(/\b[0-9a-f]{8}…/g, "<id>…")

// Runs the bin from the repository's root (the README's commands are written from there): its stdout
// and stderr. A failure is thrown with its stderr.
const run = (args) => {
  const result = spawnSync(process.execPath, [bin, ...args], { cwd: repoRoot, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } })
  if (result.status !== 0) throw new Error(`precis ${args.join(" ")} failed (${result.status}): ${result.stderr}`)
  return result
}

const withStore = (use) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "precis-readme-"))
  try {
    return use(path.join(dir, "d.db"))
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** The quotes: each renders its text (the code block's lines) from real runs. */
export const quotes = {
  demo: () =>
    withStore((db) => ["$ pnpm demo", shortenIds(run(["compact", example, "--db", db, ...demoFlags]).stdout).trimEnd()].join("\n")),
  condenser: () =>
    withStore((db) => {
      run(["compact", example, "--db", db, ...demoFlags])
      const stderr = (args) => run(args).stderr.trimEnd().split("\n").map((line) => `# ${line}`)
      return [
        `pnpm precis compact ${example} --db /tmp/d.db ${demoFlags.join(" ")}`,
        "pnpm precis context --db /tmp/d.db --budget 8000      # stderr:",
        ...stderr(["context", "--db", db, "--budget", "8000"]),
        "pnpm precis context --db /tmp/d.db --budget 8000 --no-expand >/dev/null",
        ...stderr(["context", "--db", db, "--budget", "8000", "--no-expand"]),
        "pnpm precis context --db /tmp/d.db --budget 1500 >/dev/null",
        ...stderr(["context", "--db", db, "--budget", "1500"]),
        `pnpm precis condense ${example} --budget 4000 >/dev/null`,
        ...stderr(["condense", example, "--budget", "4000"])
      ].join("\n")
    })
}

/** The file (from the repository's root) that holds each quote. */
export const files = { demo: "README.md", condenser: "docs/context.md" }

const marks = (name) => [`<!-- generated: ${name} -->\n`, "\n<!-- /generated -->"]

/** The text quoted in `readme` under `name` (inside its code fence), or undefined when there is no such quote. */
export const quoted = (readme, name) => {
  const [open, close] = marks(name)
  const start = readme.indexOf(open)
  if (start < 0) return undefined
  const end = readme.indexOf(close, start)
  const block = readme.slice(start + open.length, end)
  return block.replace(/^```[a-z]*\n/, "").replace(/\n```$/, "")
}

/** `readme` with the quote `name` replaced by `text`, in a code fence of `lang`. */
export const replace = (readme, name, text, lang) => {
  const [open, close] = marks(name)
  const start = readme.indexOf(open)
  const end = readme.indexOf(close, start)
  if (start < 0 || end < 0) throw new Error(`${files[name]} has no quote ${name} (${open.trim()} ... ${close.trim()})`)
  return readme.slice(0, start + open.length) + "```" + lang + "\n" + text + "\n```" + readme.slice(end)
}

const langs = { demo: "", condenser: "sh" }

const main = () => {
  const check = process.argv.includes("--check")
  const stale = []
  for (const [name, render] of Object.entries(quotes)) {
    const file = path.join(repoRoot, files[name])
    const readme = fs.readFileSync(file, "utf8")
    const text = render()
    const before = quoted(readme, name)
    if (before !== undefined && maskIds(before) === maskIds(text)) continue
    stale.push(`${files[name]}: ${name}`)
    if (!check) fs.writeFileSync(file, replace(readme, name, text, langs[name]))
  }
  if (check) {
    if (stale.length > 0) {
      process.stderr.write(`stale quotes ${stale.join(", ")}: run pnpm readme\n`)
      process.exitCode = 1
    }
    return
  }
  process.stdout.write(stale.length === 0 ? "quotes up to date\n" : `rewrote ${stale.join(", ")}\n`)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main()
