/**
 * The help pages of every command, \`--wizard\`, \`--version\`, and the parser's
 * errors.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { stripAnsi } from "../src/internal/console.js"
import { assertOneLineFailure, runCli } from "./utils/run.js"

describe("help", () => {
  it.live("--help on every command prints its usage and exits 0", () =>
    Effect.gen(function*() {
      const expected: Record<string, ReadonlyArray<string>> = {
        import: ["--db FILE", "--session ID", "--format", "<FILE>"],
        compact: ["--provider", "--fresh-tail N", "--leaf-chunk-tokens N", "--min-fan-in N", "--max-fan-in N", "--concurrency N"],
        summarize: ["--prior FILE", "--target-tokens N", "--provider"],
        show: ["--json", "--session ID"],
        context: ["--db FILE", "--verbose", "--budget N"],
        condense: ["--budget N", "--provider", "<FILE>"],
        search: ["<QUERY>", "--session ID", "--limit N", "--json"],
        serve: ["--db FILE", "--port N", "--host HOST"]
      }
      for (const [command, fragments] of Object.entries(expected)) {
        const result = yield* runCli([command, "--help"])
        assert.strictEqual(result.code, 0, result.stderr)
        const text = stripAnsi(result.stdout)
        for (const fragment of fragments) expect(text).toContain(fragment)
      }
      const root = yield* runCli(["--help"])
      assert.strictEqual(root.code, 0)
      for (const command of Object.keys(expected)) expect(stripAnsi(root.stdout)).toContain(`- ${command} `)
    }))

  it.live("a subcommand's usage line starts with precis, and no text option reads as generic text", () =>
    Effect.gen(function*() {
      const asked = [
        ...["import", "compact", "summarize", "sessions", "show", "context"].map((command) => [command, "--help"]),
        ["show", "-h"],
        ["--help", "context"]
      ]
      for (const args of asked) {
        const command = args.find((a) => !a.startsWith("-"))!
        const text = stripAnsi((yield* runCli(args)).stdout)
        const usage = text.split("\n").filter((l) => l.startsWith("$ "))
        assert.isAtLeast(usage.length, 1, text)
        for (const line of usage) expect(line).toMatch(new RegExp(`^\\$ precis ${command} `))
        expect(text).not.toContain("A user-defined piece of text")
      }
      const compact = stripAnsi((yield* runCli(["compact", "--help"])).stdout)
      expect(compact).toMatch(/^--fresh-tail N\n\n  An integer\.$/m)
      expect(compact).toMatch(/^--db FILE\n\n  A file path\.$/m)
      expect(compact).toMatch(/^--timeout DURATION\n\n  A duration/m)
      expect(compact).toMatch(/^<FILE>\n\n  A file path\.$/m)
    }), { timeout: 30_000 }) // eight help pages, on shared cores

  it.live("every option of every command says its default", () =>
    Effect.gen(function*() {
      const builtIns = ["--completions", "--log-level", "(-h, --help)", "--version"]
      for (const command of ["import", "compact", "summarize", "sessions", "show", "context", "watch", "search", "serve"]) {
        const text = stripAnsi((yield* runCli([command, "--help"])).stdout)
        const options = text.slice(text.indexOf("\nOPTIONS\n") + "\nOPTIONS\n".length)
        // An entry is a line at the start of the column, then its indented paragraphs.
        const entries = options.trim().split(/\n(?=[^\s])/)
        assert.isAtLeast(entries.length, 3, command)
        for (const entry of entries) {
          const name = entry.split("\n")[0]!
          if (builtIns.some((b) => name.startsWith(b))) continue
          expect(entry, `${command} ${name}`).toMatch(/default/)
        }
      }
    }))

  it.live("--wizard is neither shown nor run: it is refused with one line", () =>
    Effect.gen(function*() {
      for (const args of [["--help"], ["compact", "--help"]]) {
        expect(stripAnsi((yield* runCli(args)).stdout)).not.toContain("--wizard")
      }
      for (const args of [["--wizard"], ["compact", "--wizard"], ["show", "--db", "x.db", "--wizard"]]) {
        assertOneLineFailure(yield* runCli(args), /^precis: --wizard is not supported: see precis --help$/)
      }
    }))

  it.live("no command prints the help; --version prints the version", () =>
    Effect.gen(function*() {
      const bare = yield* runCli([])
      assert.strictEqual(bare.code, 0, bare.stderr)
      expect(stripAnsi(bare.stdout)).toContain("- summarize ")
      expect(stripAnsi(bare.stdout)).toContain("- sessions ")
      const version = yield* runCli(["--version"])
      assert.strictEqual(version.code, 0)
      assert.strictEqual(version.stdout.trim(), "0.1.0")
    }))

  it.live("an unknown command fails with exit code 1", () =>
    Effect.gen(function*() {
      const result = yield* runCli(["frobnicate"])
      assertOneLineFailure(result, /^precis: Invalid subcommand for precis - use one of 'import'/)
    }))

  it.live("the parser's errors share the precis: prefix and stay one line", () =>
    Effect.gen(function*() {
      assertOneLineFailure(
        yield* runCli(["compact", "--fresh-tail", "abc"]),
        /^precis: --fresh-tail must be an integer >= 0 \(got "abc"\)$/
      )
      assertOneLineFailure(yield* runCli(["import"]), /^precis: /)
    }))
})
