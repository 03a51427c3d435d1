/**
 * The help pages, read from the registry of commands: each command's own
 * page, the root page's list, the width they are wrapped at, and the one-line
 * errors for the arguments the parser of `@effect/cli` misreads.
 */
import * as CliConfig from "@effect/cli/CliConfig"
import * as Descriptor from "@effect/cli/CommandDescriptor"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Usage from "@effect/cli/Usage"
import { assert, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as HashSet from "effect/HashSet"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import * as Registry from "../src/commands/registry.js"
import { stripAnsi } from "../src/internal/console.js"
import * as Layout from "../src/internal/layout.js"
import { assertOneLineFailure, repoRoot, runCli, tempDir } from "./utils/run.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

/** The page printed for `args`, without styling; it must be printed with exit code 0 and nothing on stderr. */
const pageOf = (args: ReadonlyArray<string>, columns?: number) =>
  Effect.map(runCli(args, columns === undefined ? {} : { columns }), (result) => {
    assert.strictEqual(result.code, 0, result.stderr)
    assert.strictEqual(result.stderr, "")
    return stripAnsi(result.stdout)
  })

/** The lines of a page's section (`USAGE`, `OPTIONS`, …), up to the next header. */
const section = (page: string, header: string): Array<string> => {
  const lines = page.split("\n")
  const start = lines.indexOf(header)
  assert.isAtLeast(start, 0, `no ${header} in:\n${page}`)
  const end = lines.findIndex((line, i) => i > start && /^[A-Z]+$/.test(line))
  return lines.slice(start + 1, end === -1 ? undefined : end).filter((line) => line.trim().length > 0)
}

/** Text with its runs of blanks (line breaks and indentation included) as one space. */
const flat = (text: string) => text.replace(/\s+/g, " ").trim()

/** What `@effect/cli` itself says of a command: its usage line and the names of its options and arguments. */
const ownHelp = (command: Descriptor.Command<unknown>) => {
  const usage = Usage.enumerate(Descriptor.getUsage(command), CliConfig.defaultConfig)
    .map((span) => flat(stripAnsi(HelpDoc.toAnsiText(HelpDoc.p(span)))))
  const doc = stripAnsi(HelpDoc.toAnsiText(Descriptor.getHelp(command, CliConfig.defaultConfig)))
  const entries = doc.split("\n").filter((line) => /^(--|<|\(-)/.test(line) && !line.includes("--wizard"))
  return { usage, entries }
}

/** A command's subcommands, by name (a command is not a subcommand of itself). */
const subcommandsOf = (command: Descriptor.Command<unknown>) => {
  const own = new Set(HashSet.values(Descriptor.getNames(command)))
  return HashMap.toEntries(Descriptor.getSubcommands(command)).filter(([name]) => !own.has(name))
}

/** Every command a user runs: the registry's, and in place of one with subcommands (`hook`), each of them (`hook claude-code`). */
const leaves: ReadonlyArray<{ readonly path: ReadonlyArray<string>; readonly descriptor: Descriptor.Command<unknown> }> =
  Registry.entries.flatMap((entry) => {
    const subcommands = subcommandsOf(entry.descriptor)
    return subcommands.length === 0
      ? [{ path: [entry.name], descriptor: entry.descriptor }]
      : subcommands.map(([name, descriptor]) => ({ path: [entry.name, name], descriptor }))
  })

describe("each command's own page", () => {
  it.live("--help on every command of the registry prints its own usage line, options and description", () =>
    Effect.gen(function*() {
      assert.isAtLeast(leaves.length, 14)
      for (const leaf of leaves) {
        const name = leaf.path.join(" ")
        const page = yield* pageOf([...leaf.path, "--help"])
        const own = ownHelp(leaf.descriptor)
        const parents = leaf.path.slice(0, -1).map((p) => `${p} `).join("")
        // The usage, unwrapped, is the command's own, after `precis` and its parents: not the root's, not another's.
        assert.deepStrictEqual([flat(section(page, "USAGE").join(" "))], own.usage.map((u) => `$ precis ${parents}${u}`), name)
        expect(section(page, "USAGE")[0]).toMatch(new RegExp(`^\\$ precis ${name}( |$)`))
        // An entry starts a line of its own (one longer than the page, `--format`'s choices, wraps on).
        const unwrapped = page.replace(/\n {2}(?=\S)/g, " ")
        for (const entry of own.entries) expect(unwrapped, `${name}: ${entry}`).toContain(`\n${entry}\n`)
        assert.notInclude(page, "\nCOMMANDS\n", name)
      }
      // A command made of subcommands lists them on its page.
      for (const entry of Registry.entries) {
        const subcommands = subcommandsOf(entry.descriptor)
        if (subcommands.length === 0) continue
        const page = yield* pageOf([entry.name, "--help"])
        for (const [name] of subcommands) expect(section(page, "COMMANDS").join("\n"), entry.name).toContain(name)
      }
    }), { timeout: 60_000 }) // a page per command, on shared cores

  it.live("-h, --help before the command and --help after other arguments print the same page", () =>
    Effect.gen(function*() {
      for (const entry of Registry.entries) {
        const page = yield* pageOf([entry.name, "--help"])
        const variants = [[entry.name, "-h"], ["--help", entry.name], [entry.name, "--db", "x.db", "--help"]]
        for (const args of variants) assert.strictEqual(yield* pageOf(args), page, args.join(" "))
      }
    }), { timeout: 60_000 })

  it.live("condense --help is condense's page, not the root's", () =>
    Effect.gen(function*() {
      const page = yield* pageOf(["condense", "--help"])
      expect(section(page, "USAGE")[0]).toMatch(/^\$ precis condense /)
      expect(flat(section(page, "DESCRIPTION").join(" "))).toMatch(/^Fit the turns of a file into --budget N tokens/)
      for (const option of ["--budget N", "--provider extractive | openai", "--timeout DURATION", "<FILE>"]) {
        expect(page).toContain(`\n${option}\n`)
      }
    }))

  it.live("the pages hold the options each command is known for", () =>
    Effect.gen(function*() {
      const expected: Record<string, ReadonlyArray<string>> = {
        import: ["--db FILE", "--session ID", "--format", "<FILE>"],
        compact: ["--provider", "--fresh-tail N", "--leaf-chunk-tokens N", "--min-fan-in N", "--max-fan-in N", "--concurrency N"],
        summarize: ["--prior FILE", "--target-tokens N", "--provider"],
        show: ["--json", "--session ID"],
        context: ["--db FILE", "--verbose", "--budget N"],
        condense: ["--budget N", "--provider", "<FILE>"],
        watch: ["<PATH>", "--poll-interval DURATION", "--idle-threshold DURATION", "--batch-size N"],
        search: ["<QUERY>", "--session ID", "--limit N", "--json"],
        serve: ["--db FILE", "--port N", "--host HOST"]
      }
      for (const [command, fragments] of Object.entries(expected)) {
        const page = yield* pageOf([command, "--help"])
        for (const fragment of fragments) expect(page, command).toContain(fragment)
      }
    }))

  it.live("no text option reads as generic text: each says what its pseudo-name stands for", () =>
    Effect.gen(function*() {
      for (const entry of Registry.entries) {
        expect(yield* pageOf([entry.name, "--help"])).not.toContain("A user-defined piece of text")
      }
      const compact = yield* pageOf(["compact", "--help"])
      expect(compact).toMatch(/^--fresh-tail N\n\n {2}An integer\.$/m)
      expect(compact).toMatch(/^--db FILE\n\n {2}A file path\.$/m)
      expect(compact).toMatch(/^--timeout DURATION\n\n {2}A duration/m)
      expect(compact).toMatch(/^<FILE>\n\n {2}A file path\.$/m)
    }), { timeout: 30_000 })

  it.live("every option of every command says its default, and no page says \"This setting is optional.\"", () =>
    Effect.gen(function*() {
      const builtIns = ["--completions", "--log-level", "(-h, --help)", "--version"]
      for (const leaf of leaves) {
        const entry = { name: leaf.path.join(" ") }
        const page = yield* pageOf([...leaf.path, "--help"])
        assert.notInclude(page, "This setting is optional", entry.name)
        const options = page.slice(page.indexOf("\nOPTIONS\n") + "\nOPTIONS\n".length)
        // An entry is a line at the start of the column, then its indented paragraphs.
        const entries = options.trim().split(/\n(?=[^\s])/)
        assert.isAtLeast(entries.length, 3, entry.name)
        for (const option of entries) {
          const name = option.split("\n")[0]!
          if (builtIns.some((b) => name.startsWith(b))) continue
          expect(option, `${entry.name} ${name}`).toMatch(/default/)
        }
      }
      assert.notInclude(yield* pageOf(["--help"]), "This setting is optional")
    }), { timeout: 30_000 })
})

describe("the root page", () => {
  it.live("lists every command of the registry, in order, with its arguments and summary, and no command's options", () =>
    Effect.gen(function*() {
      const page = yield* pageOf(["--help"])
      const rows = section(page, "COMMANDS").filter((line) => /^ {2}\S/.test(line)).map((line) => line.trim().split(" ")[0])
      assert.deepStrictEqual(rows, Registry.entries.map((entry) => entry.name))
      for (const entry of Registry.entries) {
        const first = Layout.words(entry.summary).slice(0, 3).join(" ")
        expect(page).toMatch(new RegExp(`^ {2}${entry.name}( <[A-Z]+>(\\.\\.\\.)?| \\[<[A-Z]+>\\])? +${first}`, "m"))
      }
      expect(page).toMatch(/^ {2}compact \[<FILE>\] +Import FILE/m)
      expect(page).toMatch(/^ {2}watch <PATH>\.\.\. +Follow/m)
      assert.notInclude(page, "[--db FILE]")
      // No command, and `precis` alone, print the same page.
      assert.strictEqual(yield* pageOf([]), page)
    }))

  it.live("--wizard is neither shown nor run: it is refused with one line", () =>
    Effect.gen(function*() {
      for (const args of [["--help"], ["compact", "--help"]]) {
        expect(yield* pageOf(args)).not.toContain("--wizard")
      }
      for (const args of [["--wizard"], ["compact", "--wizard"], ["show", "--db", "x.db", "--wizard"]]) {
        assertOneLineFailure(yield* runCli(args), /^precis: --wizard is not supported: see precis --help$/)
      }
    }))

  it.live("--version prints the version", () =>
    Effect.gen(function*() {
      const version = yield* runCli(["--version"])
      assert.strictEqual(version.code, 0)
      assert.strictEqual(version.stdout.trim(), "0.1.0")
    }))
})

describe("width", () => {
  const pages = [[], ...Registry.entries.map((entry) => [entry.name])]
  const widest = (page: string) => Math.max(...page.split("\n").map((line) => line.length))

  it.live("without a terminal, every line of every page fits in 80 columns", () =>
    Effect.gen(function*() {
      for (const args of pages) {
        const page = yield* pageOf([...args, "--help"])
        assert.isAtMost(widest(page), 80, args.join(" "))
      }
      // Long enough to need wrapping: compact's usage and description take several lines.
      const compact = yield* pageOf(["compact", "--help"])
      assert.isAtLeast(section(compact, "USAGE").length, 4)
      assert.isAtLeast(widest(compact), 70)
    }), { timeout: 60_000 })

  it.live("on a terminal, the lines fit its width: 120, 60, 40 columns", () =>
    Effect.gen(function*() {
      for (const columns of [120, 60, 40]) {
        for (const args of pages) {
          const page = yield* pageOf([...args, "--help"], columns)
          const over = page.split("\n").filter((line) => line.length > columns)
          // Only a word longer than the line (a URL, a variable's name) may pass it, alone on its line.
          for (const line of over) assert.deepStrictEqual(line.trim().split(" ").length, 1, `${columns}: ${line}`)
        }
        const compact = yield* pageOf(["compact", "--help"], columns)
        assert.isAbove(widest(compact), columns - 12, `${columns}: the width is used`)
      }
    }), { timeout: 120_000 })
})

describe("layout", () => {
  it("wraps words at the width, the lines after the first hanging", () => {
    assert.deepStrictEqual(Layout.wrap(Layout.words("one two three four five"), 9, 2), ["one two", "  three", "  four", "  five"])
    assert.deepStrictEqual(Layout.wrap(["[--db FILE]", "[--json]"], 12), ["[--db FILE]", "[--json]"])
    assert.deepStrictEqual(Layout.wrap([], 10), [])
  })

  it("keeps a word with spaces whole when it fits a line, else breaks it at its spaces", () => {
    assert.deepStrictEqual(Layout.wrap(["$", "precis", "[--format a | b]"], 16), ["$ precis", "[--format a | b]"])
    assert.deepStrictEqual(Layout.wrap(["[--format a | b | c]"], 12), ["[--format a", "| b | c]"])
  })

  it("leaves a word longer than the line whole, on its own line", () => {
    assert.deepStrictEqual(Layout.wrap(["a", "postgres://USER@HOST:PORT/DB", "b"], 10), ["a", "postgres://USER@HOST:PORT/DB", "b"])
  })

  it("lays a table's second column beside the first, or under it when the width leaves it too little room", () => {
    const rows = [["import <FILE>", "Append the turns of a conversation file"], ["show", "Print the DAG"]] as const
    assert.strictEqual(
      Layout.render([Layout.table(rows, 2)], 44),
      ["  import <FILE>  Append the turns of a", "                 conversation file", "  show           Print the DAG"].join("\n")
    )
    // 40 columns leave 23 beside the names: too few.
    assert.strictEqual(
      Layout.render([Layout.table(rows, 2)], 40),
      ["  import <FILE>", "      Append the turns of a conversation", "      file", "  show", "      Print the DAG"].join("\n")
    )
  })
})

describe("arguments the parser would misread", () => {
  it.live("an unknown option is one line naming it and the command, exit 1", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [["show", "--frob"], "unknown option --frob for precis show (see precis show --help)"],
        // Commands that read a FILE took it for the file ("--frob: no such file").
        [["compact", "--frob"], "unknown option --frob for precis compact (see precis compact --help)"],
        [["summarize", "--frobnicate", "x.jsonl"], "unknown option --frobnicate for precis summarize (see precis summarize --help)"],
        [["import", "x.jsonl", "--frob=1"], "unknown option --frob for precis import (see precis import --help)"],
        [["watch", "--frob"], "unknown option --frob for precis watch (see precis watch --help)"],
        [["show", "-x"], "unknown option -x for precis show (see precis show --help)"],
        [["--frob"], "unknown option --frob for precis (see precis --help)"],
        // An option of another command is unknown here.
        [["sessions", "--budget", "3"], "unknown option --budget for precis sessions (see precis sessions --help)"]
      ]
      for (const [args, message] of cases) {
        const result = yield* runCli(args)
        assertOneLineFailure(result, `precis: ${message}`)
        assert.strictEqual(result.stdout, "")
      }
    }))

  it.live("a misspelt option is answered with the option meant", () =>
    Effect.gen(function*() {
      for (
        const [args, meant] of [
          [["show", "--jsn"], "--json"],
          [["search", "x", "--sesion", "a"], "--session"],
          [["compact", "--fresh-tails", "3"], "--fresh-tail"]
        ] as const
      ) {
        assertOneLineFailure(yield* runCli(args), new RegExp(`: did you mean ${meant}\\? \\(see precis ${args[0]} --help\\)$`))
      }
    }))

  it.live("an option without its value is one line saying what value it takes, exit 1, nothing written", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [["show", "--db"], "--db needs a value: FILE (see precis show --help)"],
        // compact and condense took the option for their FILE.
        [["compact", "--fresh-tail"], "--fresh-tail needs a value: N (see precis compact --help)"],
        [["condense", "--budget"], "--budget needs a value: N (see precis condense --help)"],
        // Followed by another option, the option has no value either.
        [["compact", "--db", "--json"], "--db needs a value: FILE (see precis compact --help)"],
        [["import", "x.jsonl", "--session", "--verbose"], "--session needs a value: ID (see precis import --help)"],
        [["summarize", "x.jsonl", "--prior"], "--prior needs a value: FILE (see precis summarize --help)"],
        [["search", "--limit"], "--limit needs a value: N (see precis search --help)"],
        [["show", "--format"], "--format needs a value: text | mermaid | dot (see precis show --help)"]
      ]
      const before = fs.readdirSync(process.cwd()).sort()
      for (const [args, message] of cases) {
        const result = yield* runCli(args)
        assertOneLineFailure(result, `precis: ${message}`)
        assert.strictEqual(result.stdout, "")
      }
      assert.deepStrictEqual(fs.readdirSync(process.cwd()).sort(), before)
    }))

  it.live("a value that looks like an option is still a value, and after -- nothing is an option", () =>
    Effect.gen(function*() {
      const db = path.join(dir, "values.db")
      // A negative number is a value: the option's own check speaks.
      assertOneLineFailure(
        yield* runCli(["compact", "--fresh-tail", "-1", "--db", db]),
        /^precis: --fresh-tail must be an integer >= 0 \(got -1\)$/
      )
      // --name=value gives the value inline.
      assertOneLineFailure(yield* runCli(["show", `--db=${db}`]), /values\.db: no such store/)
      // After --, "--frob" is the query.
      assertOneLineFailure(yield* runCli(["search", "--db", db, "--", "--frob"]), /values\.db: no such store/)
      assert.isFalse(fs.existsSync(db))
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

describe("the READMEs", () => {
  const readme = (file: string) => fs.readFileSync(path.join(repoRoot, file), "utf8")

  it("the CLI's README lists the commands of the registry, as the registry has them", () => {
    const expected = [
      "| command | what it does |",
      "|---|---|",
      ...Registry.entries.map((entry) => {
        const args = Descriptor.getUsage(entry.descriptor)
        const usage = flat(stripAnsi(HelpDoc.toAnsiText(Usage.getHelp(args))))
        const synopsis = [entry.name, ...usage.split(" ").filter((word) => /^\[?</.test(word))].join(" ")
        return `| \`precis ${synopsis}\` | ${entry.summary} |`
      })
    ].join("\n")
    const text = readme("packages/cli/README.md")
    const start = text.indexOf("<!-- commands -->\n")
    const end = text.indexOf("\n<!-- /commands -->")
    assert.isAbove(start, -1, "packages/cli/README.md has no <!-- commands --> block")
    assert.strictEqual(text.slice(start + "<!-- commands -->\n".length, end), expected, `expected the block:\n${expected}`)
  })

  it("the root README's table of commands names each command of the registry, in its order", () => {
    const rows = readme("README.md").split("\n").filter((line) => line.startsWith("| `precis "))
    const names = [...new Set(rows.map((line) => line.slice("| `precis ".length).split(/[ `]/)[0]))]
    assert.deepStrictEqual(names, Registry.entries.map((entry) => entry.name))
  })
})
