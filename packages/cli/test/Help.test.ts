/**
 * The help pages, read from the registry of commands: each command's own
 * page (the help `@effect/cli` writes of it), the root page's list, the width
 * they are wrapped at, and the changes made to the library's `HelpDoc`.
 */
import * as CliConfig from "@effect/cli/CliConfig"
import * as Descriptor from "@effect/cli/CommandDescriptor"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Span from "@effect/cli/HelpDoc/Span"
import * as Usage from "@effect/cli/Usage"
import { assert, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as HashSet from "effect/HashSet"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Registry from "../src/commands/registry.js"
import { stripAnsi } from "../src/internal/console.js"
import * as Help from "../src/internal/help.js"
import { assertOneLineFailure, repoRoot, runCli } from "./utils/run.js"

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

  it.live("-h, and --help after other arguments, print the same page", () =>
    Effect.gen(function*() {
      for (const entry of Registry.entries) {
        const page = yield* pageOf([entry.name, "--help"])
        const variants = [[entry.name, "-h"], [entry.name, "--db", "x.db", "--help"]]
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

  it.live("no option with a description of its own reads as generic text", () =>
    Effect.gen(function*() {
      for (const leaf of leaves) {
        const page = yield* pageOf([...leaf.path, "--help"])
        for (const generic of ["A user-defined piece of text.", "A true or false value.", "This setting is optional"]) {
          assert.notInclude(page, generic, leaf.path.join(" "))
        }
      }
      const compact = yield* pageOf(["compact", "--help"])
      expect(compact).toMatch(/^--fresh-tail N\n\n {2}newest turns never summarized/m)
      expect(compact).toMatch(/^--json\n\n {2}print one JSON document/m)
      expect(compact).toMatch(/^<FILE>\n\n {2}the conversation file to read$/m)
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
      const rows = section(page, "COMMANDS").filter((line) => /^\S/.test(line)).map((line) => line.split(" ")[0])
      assert.deepStrictEqual(rows.slice(0, -1), Registry.entries.map((entry) => entry.name))
      for (const entry of Registry.entries) {
        const first = entry.summary.split(" ").slice(0, 3).join(" ")
        expect(page).toMatch(new RegExp(`^${entry.name}( <[A-Z]+>(\\.\\.\\.)?| \\[<[A-Z]+>\\])?\n\n {2}${first}`, "m"))
      }
      expect(page).toMatch(/^compact \[<FILE>\]\n\n {2}Import FILE/m)
      expect(page).toMatch(/^watch <PATH>\.\.\.\n\n {2}Follow/m)
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
  const pages = [[], ...Registry.entries.map((entry) => [entry.name]), ...leaves.filter((leaf) => leaf.path.length > 1).map((leaf) => leaf.path)]
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

describe("the changes to the library's HelpDoc", () => {
  const text = (doc: HelpDoc.HelpDoc) => stripAnsi(HelpDoc.toAnsiText(doc))
  const entry = (name: string, ...paragraphs: ReadonlyArray<string>) =>
    HelpDoc.descriptionList([[Span.text(name), HelpDoc.blocks(paragraphs.map((p) => HelpDoc.p(p)))]])

  it("an option's generic line goes where the option has a description, and stays where it has none", () => {
    const described = Help.plain(entry("--json", "A true or false value.", "print JSON", "This setting is optional."))
    assert.strictEqual(text(described), text(entry("--json", "print JSON")))
    const bare = entry("--name", "A user-defined piece of text.", "This setting is optional. Defaults to: x")
    assert.strictEqual(text(Help.plain(bare)), text(bare))
  })

  it("--wizard goes, the other entries stay", () => {
    const doc = HelpDoc.sequence(entry("--wizard", "Start wizard mode for a command."), entry("--version", "Show the version."))
    assert.strictEqual(text(Help.plain(doc)), text(entry("--version", "Show the version.")))
  })

  it("the library's list of subcommands, padded rows, becomes a list of usages, each with its description", () => {
    const hook = Registry.entries.find((e) => e.name === "hook")!.descriptor
    const list = Help.plain(Descriptor.getHelp(hook, CliConfig.defaultConfig))
    expect(text(list)).toMatch(/^claude-code \[--db FILE\].*\n\n {2}Run by Claude Code's hooks/m)
  })
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

  it("the table of commands in docs/cli.md names each command of the registry, in its order", () => {
    const rows = readme("docs/cli.md").split("\n").filter((line) => line.startsWith("| `precis "))
    const names = [...new Set(rows.map((line) => line.slice("| `precis ".length).split(/[ `]/)[0]))]
    assert.deepStrictEqual(names, Registry.entries.map((entry) => entry.name))
  })
})
