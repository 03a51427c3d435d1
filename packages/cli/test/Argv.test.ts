/**
 * The arguments the parser of `@effect/cli` misreads, and the one workaround
 * the CLI keeps for it (`internal/argv.ts`): first the upstream behaviour
 * itself, on a bare command of the library (the test fails once the library
 * stops doing it, and the workaround can go), then what `precis` says.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import { assertOneLineFailure, runCli, tempDir } from "./utils/run.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

describe("upstream: @effect/cli binds a word that looks like an option to a positional argument", () => {
  /** The FILE a bare `x [--db FILE] <FILE>` of the library is given by `args`, or its error. */
  const fileOf = (args: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      let file: string | undefined
      const bare = Command.make("x", { db: Options.text("db").pipe(Options.optional), file: Args.text({ name: "FILE" }) }, (given) =>
        Effect.sync(() => {
          file = given.file
        }))
      yield* Command.run(bare, { name: "x", version: "0" })(["node", "x", ...args]).pipe(
        Effect.provide(NodeContext.layer),
        Effect.withConsole({ ...console, error: () => Effect.void } as never)
      )
      return file
    })

  it.effect("an unknown option is read as the FILE", () =>
    Effect.map(fileOf(["--frob"]), (file) => assert.strictEqual(file, "--frob")))

  it.effect("a known option given last without its value is read as the FILE", () =>
    Effect.map(fileOf(["--db"]), (file) => assert.strictEqual(file, "--db")))

  it.effect("--help after an option and its value is read as the FILE, not as a request for help", () =>
    Effect.map(fileOf(["--db", "x.db", "--help"]), (file) => assert.strictEqual(file, "--help")))
})

describe("precis refuses such a word as a value before --", () => {
  it.live("an unknown option, where a command reads a FILE, PATH or QUERY, is one line naming it, exit 1", () =>
    Effect.gen(function*() {
      for (const args of [["compact", "--frob"], ["summarize", "--frobnicate", "x.jsonl"], ["watch", "--frob"], ["search", "-x"]]) {
        const result = yield* runCli(args)
        const word = args.find((arg) => arg.startsWith("-"))!
        assertOneLineFailure(result, `precis: unknown option ${word} (a value that starts with - goes after --)`)
        assert.strictEqual(result.stdout, "")
      }
    }))

  it.live("an option given without its value is said as such, a misspelt one with the option meant; nothing written", () =>
    Effect.gen(function*() {
      const before = fs.readdirSync(process.cwd()).sort()
      for (const [args, option] of [[["compact", "--fresh-tail"], "--fresh-tail"], [["condense", "--budget"], "--budget"], [["search", "--limit"], "--limit"]] as const) {
        assertOneLineFailure(yield* runCli(args), `precis: Expected a value following option: '${option}'`)
      }
      assertOneLineFailure(
        yield* runCli(["compact", "--fresh-tails", "3"]),
        "precis: The flag '--fresh-tails' is not recognized. Did you mean '--fresh-tail'?"
      )
      assert.deepStrictEqual(fs.readdirSync(process.cwd()).sort(), before)
    }))

  it.live("a word that starts with - is a value after --, and so is a negative number or - alone before it", () =>
    Effect.gen(function*() {
      const db = path.join(dir, "values.db")
      // After --, "--frob" is the query: the search goes on to the store.
      assertOneLineFailure(yield* runCli(["search", "--db", db, "--", "--frob"]), /values\.db: no such store/)
      // A negative number is a value: the option's own check speaks.
      assertOneLineFailure(
        yield* runCli(["compact", "--fresh-tail", "-1", "--db", db]),
        /^precis: --fresh-tail must be an integer >= 0 \(got -1\)$/
      )
      assertOneLineFailure(yield* runCli(["import", "--db", db, "-"]), /^precis: -: /)
      assert.isFalse(fs.existsSync(db))
    }))
})

describe("what the parser says itself", () => {
  it.live("an unknown option of a command without a positional argument, an unknown command: one line, exit 1", () =>
    Effect.gen(function*() {
      for (const [args, word] of [[["show", "--frob"], "--frob"], [["sessions", "--budget", "3"], "--budget"], [["show", "--db"], "--db"]] as const) {
        const result = yield* runCli(args)
        assertOneLineFailure(result, `precis: Received unknown argument: '${word}'`)
        assert.strictEqual(result.stdout, "")
      }
      assertOneLineFailure(yield* runCli(["frobnicate"]), /^precis: Invalid subcommand for precis - use one of 'import'/)
    }))

  it.live("a bad value is one line with the precis: prefix", () =>
    Effect.gen(function*() {
      assertOneLineFailure(yield* runCli(["compact", "--fresh-tail", "abc"]), /^precis: --fresh-tail must be an integer >= 0 \(got "abc"\)$/)
      assertOneLineFailure(yield* runCli(["import"]), /^precis: /)
      expect((yield* runCli(["import"])).stdout).toBe("")
    }))
})
