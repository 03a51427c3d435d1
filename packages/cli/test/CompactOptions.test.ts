/**
 * The compaction flags of `compact` and their `PRECIS_COMPACTION_*` variables:
 * a flag wins over its variable, a variable over the library's default, and
 * every bad value is one line naming the flag or the variable.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { assert, describe, it } from "@effect/vitest"
import { CompactionManager, CompactionOptions } from "@precis/compaction"
import { Summarizer } from "@precis/core"
import { Importer } from "@precis/importers"
import { ExtractiveProvider } from "@precis/provider-extractive"
import { TurnStore } from "@precis/store"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import { storeLayer } from "../../compaction/test/helpers.js"
import { compactionOptions } from "../src/internal/compactionFlags.js"
import { assertOneLineFailure, escape, runCli, sessionJsonl, tempDir, write } from "./utils/run.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

describe("compaction flags and their PRECIS_COMPACTION_* variables", () => {
  const file = write(dir, "env.jsonl", sessionJsonl(40))
  const compactJson = (name: string, args: ReadonlyArray<string>, env?: Record<string, string>) =>
    Effect.map(
      runCli(["compact", file, "--db", path.join(dir, `${name}.db`), "--json", ...args], env === undefined ? {} : { env }),
      (result) => {
        assert.strictEqual(result.code, 0, result.stderr)
        return JSON.parse(result.stdout) as { leafSummariesCreated: number; turnsCompacted: number }
      }
    )

  it.live("a missing flag is read from its variable, and the flag wins over the variable", () =>
    Effect.gen(function*() {
      const byFlag = yield* compactJson("flag", ["--leaf-chunk-tokens", "150", "--fresh-tail", "6"])
      const byEnv = yield* compactJson("env", [], {
        PRECIS_COMPACTION_LEAF_CHUNK_TOKENS: "150",
        PRECIS_COMPACTION_FRESH_TAIL_TURNS: "6"
      })
      const defaults = yield* compactJson("defaults", [])
      assert.strictEqual(byFlag.turnsCompacted, 34)
      assert.deepStrictEqual(byEnv, byFlag)
      assert.notStrictEqual(defaults.leafSummariesCreated, byFlag.leafSummariesCreated)
      const flagWins = yield* compactJson("both", ["--leaf-chunk-tokens", "150", "--fresh-tail", "6"], {
        PRECIS_COMPACTION_FRESH_TAIL_TURNS: "30"
      })
      assert.deepStrictEqual(flagWins, byFlag)
    }))

  it.live("without flags or variables the CLI writes the DAG the library writes with its defaults", () =>
    Effect.gen(function*() {
      // 60 turns of ~200 tokens: more than one leaf of 2000 tokens, one of the library's 20,000.
      const big = write(dir, "defaults.jsonl", sessionJsonl(60).split("\n").map((line) => {
        if (line.length === 0) return line
        const turn = JSON.parse(line)
        return JSON.stringify({ ...turn, content: `${turn.content} ${"and then src/app.ts was read again ".repeat(20)}` })
      }).join("\n"))
      const db = path.join(dir, "defaults.db")
      const cli = yield* runCli(["compact", big, "--db", db, "--json"])
      assert.strictEqual(cli.code, 0, cli.stderr)
      const library = yield* Effect.gen(function*() {
        const store = yield* TurnStore.TurnStore
        const manager = yield* CompactionManager.CompactionManager
        const imported = yield* Importer.importFile(big)
        yield* store.appendTurns("defaults", Importer.allTurns(imported))
        return yield* manager.compact("defaults")
      }).pipe(
        Effect.provide(CompactionManager.layer().pipe(
          Layer.provideMerge(storeLayer()),
          Layer.provide(Summarizer.layer()),
          Layer.provide(ExtractiveProvider.layer())
        )),
        Effect.provide(NodeFileSystem.layer)
      )
      const stats = JSON.parse(cli.stdout)
      assert.deepStrictEqual(
        [stats.leafSummariesCreated, stats.condensedSummariesCreated, stats.turnsCompacted],
        [library.leafSummariesCreated, library.condensedSummariesCreated, library.turnsCompacted]
      )
      assert.strictEqual(stats.turnsCompacted, 60 - CompactionOptions.defaults.freshTailTurns)
    }))

  it.live("--budget and PRECIS_COMPACTION_BUDGET are the library's budget: they bound the fresh tail in tokens", () =>
    Effect.gen(function*() {
      // A budget of 2400 bounds the tail at 1000 tokens (FreshTail.tokensFor), fewer than 16 turns of this session.
      const byFlag = yield* compactJson("budget", ["--budget", "2400"])
      const byVariable = yield* compactJson("budget-env", [], { PRECIS_COMPACTION_BUDGET: "2400" })
      const none = yield* compactJson("budget-none", [])
      assert.deepStrictEqual(byVariable, byFlag)
      assert.isAbove(byFlag.turnsCompacted, none.turnsCompacted)
      // PRECIS_BUDGET is not a variable of precis: one budget variable.
      assert.deepStrictEqual(yield* compactJson("budget-old", [], { PRECIS_BUDGET: "2400" }), none)
    }))

  it.effect("compactionOptions reads all 13 PRECIS_COMPACTION_* variables, a flag winning over its variable", () =>
    Effect.gen(function*() {
      // A value for each of the 13 options, as a shell would set them.
      const env = (
        "FRESH_TAIL_TURNS=3 FRESH_TAIL_TOKENS=900 BUDGET=8000 LOW_WATER=0.4 LEAF_CHUNK_TOKENS=700 MAX_TURNS=50 " +
        "MIN_FAN_IN=3 MAX_FAN_IN=5 THRESHOLD=0.6 CONCURRENCY=2 LEAF_TARGET_TOKENS=300 CONDENSE_TARGET_TOKENS=400 " +
        "ALSO_LINE=false"
      ).split(" ").map((setting) => {
        const [name, value] = setting.split("=")
        return [`${CompactionOptions.prefix}${name}`, value!] as const
      })
      const none = Option.none<number>()
      const flags = {
        budget: none,
        freshTailTurns: Option.some(6),
        leafChunkTokens: none,
        minFanIn: none,
        maxFanIn: none,
        concurrency: none,
        alsoLine: Option.none<boolean>()
      }
      const [options, library] = yield* Effect.all([compactionOptions(flags), CompactionOptions.config]).pipe(
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map(env)))
      )
      assert.strictEqual(Object.keys(options).length, 13)
      assert.deepStrictEqual(options, { ...library, freshTailTurns: 6 })
      assert.strictEqual(options.threshold, 0.6)
      assert.strictEqual(options.alsoLine, false)
    }))

  it.live("PRECIS_COMPACTION_MAX_TURNS reaches the compaction", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* compactJson("max-turns", [], { PRECIS_COMPACTION_MAX_TURNS: "5" })).turnsCompacted, 5)
    }))

  it.live("every PRECIS_COMPACTION_* variable out of its bounds exits 1 with one line naming it, writing nothing", () =>
    Effect.gen(function*() {
      const bad: ReadonlyArray<readonly [string, string, string]> = [
        ["PRECIS_COMPACTION_THRESHOLD", "5", "must be a number in (0, 1] (got 5)"],
        ["PRECIS_COMPACTION_LEAF_TARGET_TOKENS", "-3", "must be an integer >= 1 (got -3)"],
        ["PRECIS_COMPACTION_FRESH_TAIL_TURNS", "-1", "must be an integer >= 0 (got -1)"],
        ["PRECIS_COMPACTION_FRESH_TAIL_TOKENS", "1.5", "must be an integer >= 0 (got 1.5)"],
        ["PRECIS_COMPACTION_BUDGET", "0", "must be an integer >= 1 (got 0)"],
        ["PRECIS_COMPACTION_LOW_WATER", "2", "must be a number in (0, 1] (got 2)"],
        ["PRECIS_COMPACTION_LEAF_CHUNK_TOKENS", "lots", `must be an integer >= 1 (got "lots")`],
        ["PRECIS_COMPACTION_MAX_TURNS", "0", "must be an integer >= 1 (got 0)"],
        ["PRECIS_COMPACTION_MIN_FAN_IN", "1", "must be an integer >= 2 (got 1)"],
        ["PRECIS_COMPACTION_MAX_FAN_IN", "3", "must be an integer >= PRECIS_COMPACTION_MIN_FAN_IN (got 3 < 4)"],
        ["PRECIS_COMPACTION_CONCURRENCY", "0", "must be an integer >= 1 (got 0)"],
        ["PRECIS_COMPACTION_CONDENSE_TARGET_TOKENS", "NaN", `must be an integer >= 1 (got "NaN")`],
        ["PRECIS_COMPACTION_ALSO_LINE", "perhaps", `must be true or false (got "perhaps")`]
      ]
      const db = path.join(dir, "bad-env.db")
      for (const [name, value, message] of bad) {
        const result = yield* runCli(["compact", file, "--db", db], { env: { [name]: value } })
        assertOneLineFailure(result, new RegExp(`^precis: configuration error: ${name}: ${escape(message)}$`))
      }
      assert.isFalse(fs.existsSync(db))
    }))

  it.live("a rule broken across a flag and a variable names both", () =>
    Effect.gen(function*() {
      const result = yield* runCli(["compact", file, "--db", path.join(dir, "across.db"), "--max-fan-in", "3"], {
        env: { PRECIS_COMPACTION_MIN_FAN_IN: "5" }
      })
      assertOneLineFailure(result, /^precis: --max-fan-in must be an integer >= PRECIS_COMPACTION_MIN_FAN_IN \(got 3 < 5\)$/)
    }))
})
