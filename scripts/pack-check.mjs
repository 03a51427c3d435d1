#!/usr/bin/env node
// `pnpm pack-check`: the install path of docs/agents.md ("Install from tarballs"), checked: `pnpm tarballs` (builds the
// workspace and packs every public package, each packages/*/package.json without
// `"private": true`, with `pnpm pack`, into one folder), then `npm install DIR/*.tgz` in a fresh
// project outside the workspace, which must print no warning (no ERESOLVE, no peer-dependency
// warning); there it type-checks and runs a TypeScript consumer (an @effect/ai agent with
// PrecisChat among it) and the installed `precis` bin.
// Any failure exits non-zero with the command and its output.
//
// `--keep` leaves the temporary directory in place (its path is printed).
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Tarballs from "./tarballs.mjs"

const root = Tarballs.root
const keep = process.argv.includes("--keep")

const step = (message) => process.stderr.write(`pack-check: ${message}\n`)
const fail = (message) => Tarballs.fail("pack-check", message)
const run = (command, args, cwd, env) => Tarballs.run("pack-check", command, args, cwd, env)

const check = (condition, message) => {
  if (!condition) fail(message)
}

const publicPackages = Tarballs.publicPackages()
check(publicPackages.some(({ manifest }) => manifest.name === "@precis/cli"), "no public @precis/cli package found")

const work = fs.mkdtempSync(path.join(os.tmpdir(), "precis-pack-check-"))
const tarballs = path.join(work, "tarballs")
const project = path.join(work, "project")
fs.mkdirSync(project)

// The store drivers and the SQL drivers under them, and the packages that may depend on them.
const storeDrivers = ["@precis/store-sqlite", "@precis/store-pg", "@effect/sql-sqlite-node", "@effect/sql-pg"]
const driverUsers = ["@precis/store-sqlite", "@precis/store-pg", "@precis/cli"]

// What a user runs: `pnpm tarballs DIR` (the same function), then `npm install DIR/*.tgz`.
const tarballOf = Tarballs.writeTarballs(tarballs, "pack-check")
for (const { manifest } of publicPackages) {
  const listing = run("tar", ["-tzf", tarballOf[manifest.name]], work).split("\n")
  check(listing.includes("package/dist/index.js"), `${manifest.name}: the tarball has no dist/index.js`)
  check(listing.includes("package/dist/index.d.ts"), `${manifest.name}: the tarball has no dist/index.d.ts`)
  check(!listing.some((file) => file.startsWith("package/test/")), `${manifest.name}: the tarball ships its tests`)
  const packed = JSON.parse(run("tar", ["-xzOf", tarballOf[manifest.name], "package/package.json"], work))
  const specs = { ...packed.dependencies, ...packed.peerDependencies }
  const unresolved = Object.entries(specs).filter(([, spec]) => spec.startsWith("workspace:"))
  check(unresolved.length === 0, `${manifest.name}: the packed manifest keeps ${JSON.stringify(unresolved)}`)
  // A port apart from its drivers: only a driver (and the CLI, which offers both) installs one.
  const drivers = Object.keys(packed.dependencies ?? {}).filter((name) => storeDrivers.includes(name))
  check(
    drivers.length === 0 || driverUsers.includes(manifest.name),
    `${manifest.name}: depends on the store driver(s) ${drivers.join(", ")}`
  )
}

// The TypeScript and Node type versions of the workspace, so the consumer checks with the same compiler.
const rootManifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"))
const write = (file, text) => fs.writeFileSync(path.join(project, file), text)
write(
  "package.json",
  `${JSON.stringify({
    name: "precis-pack-check",
    private: true,
    type: "module",
    devDependencies: {
      typescript: rootManifest.devDependencies.typescript,
      "@types/node": rootManifest.devDependencies["@types/node"]
    }
  }, null, 2)}\n`
)
write(
  "tsconfig.json",
  `${JSON.stringify({
    compilerOptions: {
      strict: true,
      exactOptionalPropertyTypes: true,
      module: "NodeNext",
      moduleResolution: "NodeNext",
      target: "ES2022",
      // effect's Stream declarations name web stream types (QueuingStrategy) that only DOM declares.
      lib: ["ES2022", "DOM"],
      types: ["node"],
      outDir: "out",
      // Checks the packed declarations too (and those of effect and @effect/*).
      skipLibCheck: false
    },
    include: ["*.ts"]
  }, null, 2)}\n`
)
// Every public package's entry point, so a broken `exports` or declaration fails the type-check and the run.
write(
  "entries.ts",
  `${publicPackages.map(({ manifest }, i) => `import * as Entry${i} from "${manifest.name}"`).join("\n")}\n\n` +
    `export const entries: ReadonlyArray<readonly [string, object]> = [\n` +
    `${publicPackages.map(({ manifest }, i) => `  ["${manifest.name}", Entry${i}]`).join(",\n")}\n]\n`
)
write(
  "consumer.ts",
  `import { Chat } from "@effect/ai"
import { PrecisChat } from "@precis/chat"
import { CompactionManager } from "@precis/compaction"
import { ConversationTurn, Summarizer } from "@precis/core"
import { ExtractiveProvider } from "@precis/provider-extractive"
import { TurnStore } from "@precis/store"
import { SqliteStore } from "@precis/store-sqlite"
import { ScriptedLanguageModel } from "@precis/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { entries } from "./entries.js"

for (const [name, entry] of entries) {
  if (Object.keys(entry).length === 0) throw new Error(\`\${name} exports nothing\`)
}

const program = Effect.gen(function*() {
  const summarizer = yield* Summarizer.Summarizer
  return yield* summarizer.summarizeTurns(
    [
      ConversationTurn.make({ role: "user", content: "Why does \`npm test\` fail in src/db.ts?", timestamp: "2025-06-01T09:00:00Z" }),
      ConversationTurn.make({ role: "assistant", content: "src/db.ts:12 opens the wrong file; fixed by reading DB_PATH.", timestamp: "2025-06-01T09:01:00Z" })
    ],
    { targetTokens: 200 }
  )
})

const summary = await program.pipe(
  Effect.provide(Summarizer.layer().pipe(Layer.provide(ExtractiveProvider.layer()))),
  Effect.runPromise
)
if (summary.text.trim().length === 0) throw new Error("the summary is empty")
if (!["normal", "aggressive", "fallback"].includes(summary.tier)) throw new Error(\`unexpected tier \${summary.tier}\`)

// The engine over the store port, its SQLite driver in memory.
const stats = await Effect.gen(function*() {
  const store = yield* TurnStore.TurnStore
  yield* store.appendTurns("s", Array.from({ length: 8 }, (_, i) =>
    ConversationTurn.make({ role: i % 2 === 0 ? "user" : "assistant", content: \`step \${i}: edited src/file\${i}.ts\` })))
  return yield* (yield* CompactionManager.CompactionManager).compact("s", { freshTailTurns: 2, leafChunkTokens: 20 })
}).pipe(
  Effect.provide(CompactionManager.layer().pipe(
    Layer.provideMerge(SqliteStore.layer({ filename: ":memory:" })),
    Layer.provide(Summarizer.layer().pipe(Layer.provide(ExtractiveProvider.layer())))
  )),
  Effect.runPromise
)
if (stats.leafSummariesCreated === 0) throw new Error("the compaction created no leaf")

// An @effect/ai agent's chat from PrecisChat.layer, over a scripted model: the turns are stored.
const chat = await Effect.gen(function*() {
  const chat = yield* Effect.flatMap(Chat.Persistence, (persistence) => persistence.getOrCreate("agent"))
  const response = yield* chat.generateText({ prompt: "Why does npm test fail?" })
  const store = yield* TurnStore.TurnStore
  return { text: response.text, turns: (yield* store.turns("agent")).length }
}).pipe(
  Effect.provide(Layer.mergeAll(
    PrecisChat.layer({ budget: 4_000 }).pipe(
      Layer.provide(ExtractiveProvider.layer()),
      Layer.provideMerge(SqliteStore.layer({ filename: ":memory:" }))
    ),
    ScriptedLanguageModel.layer([ScriptedLanguageModel.text("src/db.ts opens the wrong file.")])
  )),
  Effect.runPromise
)
if (chat.turns !== 2) throw new Error(\`the chat stored \${chat.turns} turns, not 2\`)
console.log(JSON.stringify({ tier: summary.tier, text: summary.text, leaves: stats.leafSummariesCreated, chat: chat.text }))
`
)
write(
  "small.jsonl",
  [
    { role: "user", content: "The login test fails with TypeError: cannot read 'id' of undefined.", timestamp: "2025-06-01T09:00:00Z" },
    { role: "assistant", content: "createSession in src/auth/session.ts returns before the await; running `npm test`.", timestamp: "2025-06-01T09:01:00Z" },
    { role: "tool", content: "FAIL test/login.test.ts\n  TypeError: cannot read 'id' of undefined", timestamp: "2025-06-01T09:02:00Z" },
    { role: "assistant", content: "Fixed: await the session insert. All 42 tests pass.", timestamp: "2025-06-01T09:03:00Z" }
  ].map((turn) => JSON.stringify(turn)).join("\n") + "\n"
)

// The line of docs/agents.md, `npm install DIR/*.tgz` (the shell expands the glob into these files), at npm's
// default log level: a peer-dependency conflict (ERESOLVE) or any other warning fails the check, but
// npm 11's notice that better-sqlite3 (and others) have install scripts to approve (`install-scripts`),
// which says nothing of the dependency tree.
step(`installing the tarballs with npm in ${project} (better-sqlite3 may build from source: minutes)`)
const files = fs.readdirSync(tarballs).filter((file) => file.endsWith(".tgz")).map((file) => path.join(tarballs, file))
// As a user's shell runs it: without the npm_* settings pnpm puts in a script's environment (npm warns of
// each it does not know, `verify-deps-before-run`, ...).
const userEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)))
const installed = spawnSync("npm", ["install", "--no-audit", "--no-fund", ...files], { cwd: project, encoding: "utf8", env: userEnv })
const npmOutput = `${installed.stdout ?? ""}${installed.stderr ?? ""}`
check(installed.status === 0, `npm install ${tarballs}/*.tgz exited with ${installed.status}\n${npmOutput}`)
const warnings = npmOutput.split("\n")
  .filter((line) => /ERESOLVE|npm warn|peer dep/i.test(line) && !/^npm warn install-scripts/i.test(line))
check(warnings.length === 0, `npm install printed warnings:\n${warnings.join("\n")}`)

step("type-checking and compiling the consumer with tsc")
run(path.join(project, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json"], project)

step("running the consumer with node")
const consumed = JSON.parse(run(process.execPath, ["out/consumer.js"], project).trim())
check(
  consumed.text.length > 0 && typeof consumed.tier === "string" && consumed.chat === "src/db.ts opens the wrong file.",
  `consumer printed ${JSON.stringify(consumed)}`
)

// The bin as a user runs it; no PRECIS_* or OPENAI_* setting of this machine leaks in.
const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("PRECIS_") && !key.startsWith("OPENAI_")))
const precis = (...args) => run(path.join(project, "node_modules", ".bin", "precis"), args, project, env)

step("running the installed precis bin")
check(precis("--help").includes("COMMANDS"), "precis --help printed no COMMANDS section")
const summarized = JSON.parse(precis("summarize", "small.jsonl", "--json"))
check(typeof summarized.text === "string" && summarized.text.trim().length > 0, `precis summarize printed an empty text: ${JSON.stringify(summarized)}`)
check(["normal", "aggressive", "fallback"].includes(summarized.tier), `precis summarize printed tier ${summarized.tier}`)
const compacted = JSON.parse(precis("compact", "small.jsonl", "--db", "small.db", "--fresh-tail", "1", "--leaf-chunk-tokens", "40", "--json"))
check(compacted.leafSummariesCreated >= 1, `precis compact created no leaf summary: ${JSON.stringify(compacted)}`)
const shown = JSON.parse(precis("show", "--db", "small.db", "--json"))
check(Array.isArray(shown.nodes) && shown.nodes.length >= 1, `precis show listed no node: ${JSON.stringify(shown)}`)

if (keep) step(`kept ${work}`)
else fs.rmSync(work, { recursive: true, force: true })
step(`ok: ${publicPackages.length} packages packed, installed, type-checked and run`)
