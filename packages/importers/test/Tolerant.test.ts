/**
 * Lenient import of another program's log: a line that cannot be read is
 * skipped, reported with its line and kept with its text; the rest imported;
 * `strict` refuses the file as before.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Importer from "../src/Importer.js"
import * as LineParser from "../src/LineParser.js"
import { jsonl, parsed } from "./helpers.js"

// A Claude Code session of `n` lines, user and assistant in turn, each with its own uuid.
const session = (n: number): ReadonlyArray<string> =>
  Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      type: i % 2 === 0 ? "user" : "assistant",
      uuid: `u-${i}`,
      sessionId: "s",
      timestamp: `2025-01-01T00:00:${String(i % 60).padStart(2, "0")}Z`,
      message: { role: i % 2 === 0 ? "user" : "assistant", content: `line ${i} says [x]` }
    }))

// Three ways a redaction tool or a crash breaks a line: an invalid escape, text in a number, a cut.
const corrupt = (line: string, how: number): string =>
  how === 0
    ? line.replace("[x]", "\\[x]")
    : how === 1
    ? line.replace("{", "{\"n\":12a3,")
    : line.slice(0, Math.floor(line.length / 2))

const ids = (imported: Importer.Imported) => Importer.allTurns(imported).map((t) => t.id!)

describe("a lenient import", () => {
  it("skips each corrupted line, reports it with its text, and a second import of the mended file adds exactly those lines", () => {
    FastCheck.assert(
      FastCheck.property(
        FastCheck.integer({ min: 1, max: 40 }).chain((n) =>
          FastCheck.tuple(FastCheck.constant(n), FastCheck.uniqueArray(FastCheck.tuple(FastCheck.nat(n - 1), FastCheck.nat(2)), { selector: ([i]) => i, maxLength: n }))
        ),
        ([n, broken]) => {
          const lines = session(n)
          const bad = new Map(broken)
          const damaged = lines.map((line, i) => bad.has(i) ? corrupt(line, bad.get(i)!) : line)
          const first = parsed(damaged.join("\n") + "\n", "claude-code")
          const wanted = [...bad.keys()].sort((a, b) => a - b)
          assert.deepStrictEqual(first.skipped.map((s) => s.line), wanted.map((i) => i + 1))
          assert.deepStrictEqual(first.skipped.map((s) => s.text), wanted.map((i) => damaged[i]))
          assert.deepStrictEqual(ids(first), lines.flatMap((_, i) => bad.has(i) ? [] : [`u-${i}`]))
          // A store dedupes by id: what the mended file adds is the ids it has and the first import had not.
          const stored = new Set(ids(first))
          const added = ids(parsed(lines.join("\n") + "\n", "claude-code")).filter((id) => !stored.has(id))
          assert.deepStrictEqual(added, wanted.map((i) => `u-${i}`))
        }
      ),
      { numRuns: 200 }
    )
  })

  it("is refused whole with strict, at the first bad line, as before", () => {
    const text = [session(3)[0], corrupt(session(3)[1]!, 0), session(3)[2]].join("\n")
    const result = Importer.parse(text, "claude-code", "s.jsonl", { strict: true })
    assert.isTrue(Either.isLeft(result))
    if (Either.isLeft(result)) expect(result.left.message).toBe("s.jsonl:2: invalid JSON: invalid escape in string")
    expect(parsed(text, "claude-code").skipped).toMatchObject([{ line: 2, reason: "invalid JSON: invalid escape in string" }])
  })

  it("stores a Claude Code tool output with a NUL, the NUL shown as ␀, and reports it", () => {
    const text = jsonl(
      { type: "assistant", uuid: "a1", message: { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "cat bin" } }] } },
      { type: "user", uuid: "u1", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "ab\u0000cd" }] } }
    )
    const imported = parsed(text, "auto")
    assert.strictEqual(Importer.allTurns(imported)[1]!.content, "ab\u2400cd")
    assert.deepStrictEqual(imported.mended, [{ line: 2, reason: "NUL (U+0000) in the content shown as \u2400" }])
    assert.deepStrictEqual(imported.skipped, [])
    assert.isTrue(Either.isLeft(Importer.parse(text, "auto", "s", { strict: true })))
  })

  it("is not precis JSONL's (a file of precis's own format is the user's) nor a JSON document's", () => {
    assert.isTrue(Either.isLeft(Importer.parse("{\"role\":\"user\",\"content\":\"a\"}\n{bad\n", "precis", "p")))
    assert.isTrue(Either.isLeft(Importer.parse("[{\"role\":\"user\",\"content\":1}]", "openai", "o")))
  })

  it("reports what each push of a line parser skipped, once", () => {
    const parser = LineParser.make("claude-code", "live.jsonl", { strict: false })!
    const [good, other] = session(2)
    const pushed = parser.push([good!, "{oops"])
    assert.isTrue(Either.isRight(pushed))
    expect(parser.report()).toMatchObject({ skipped: [{ line: 2, text: "{oops" }], mended: [] })
    parser.push([other!])
    assert.deepStrictEqual(parser.report(), { skipped: [], mended: [] })
    // Strict by default, until the follower keeps what it skips.
    assert.isTrue(Either.isLeft(LineParser.make("claude-code", "live.jsonl")!.push(["{oops"])))
  })
})
