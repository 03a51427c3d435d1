import { assert, describe, expect, it } from "@effect/vitest"
import * as Importer from "../src/Importer.js"
import * as LineParser from "../src/LineParser.js"
import * as Option from "effect/Option"
import * as fs from "node:fs"
import * as path from "node:path"

const readme = (file: string) => fs.readFileSync(path.join(import.meta.dirname, file), "utf8")

describe("the registry of formats", () => {
  it("gives the --format choices, the formats read line by line and the undetected message", () => {
    assert.deepStrictEqual(Importer.formats, ["auto", ...Importer.sources.map((source) => source.name)])
    assert.deepStrictEqual(Importer.formats, [
      "auto",
      "precis",
      "openai",
      "claude-code",
      "swe-agent",
      "openhands",
      "oasst",
      "codex",
      "gemini",
      "gemini-stream",
      "opencode",
      "opencode-storage",
      "pi",
      "cline",
      "aider"
    ])
    assert.deepStrictEqual(Importer.lineFormats, Importer.sources.filter((s) => s.lineBased).map((s) => s.name))
    assert.deepStrictEqual(Importer.lineFormats, ["precis", "claude-code", "oasst", "codex", "gemini-stream", "pi"])
    for (const name of Importer.formats) {
      if (name !== "auto") assert.strictEqual(LineParser.make(name, "x") !== undefined, Importer.lineFormats.includes(name), name)
    }
    const undetected = Importer.parse("hello", "auto", "notes.txt")
    assert.isTrue(undetected._tag === "Left")
    if (undetected._tag === "Left") {
      assert.strictEqual(undetected.left.reason, "UnknownFormat")
      expect(undetected.left.description).toBe(`cannot detect the transcript format; pass one of ${Importer.formats.slice(1).join(", ")}`)
    }
  })

  it("is what the docs list: the importers README's table and detection note, docs/cli.md's --format", () => {
    const names = Importer.sources.map((source) => source.name)
    const table = [...readme("../README.md").matchAll(/^\| `([\w-]+)` \|/gm)].map((m) => m[1])
    assert.deepStrictEqual(table, names)
    expect(readme("../README.md").replace(/\s+/g, " ")).toContain(`pass one of ${names.join(", ")}`)
    expect(readme("../../../docs/cli.md").replace(/\s+/g, " ")).toContain(`--format ${Importer.formats.join("|")}`)
  })
})

describe("detection", () => {
  it("takes sure evidence before weak: a key of a format's own over a shape others share", () => {
    // A Claude Code line's type, beside role and content (which precis lines have).
    const both = JSON.stringify({ role: "user", content: "x", type: "user", sessionId: "s" })
    assert.deepStrictEqual(Importer.detect(both), Option.some("claude-code"))
    // OpenHands events hold OpenAI messages in their metadata: an event's key wins in a truncated array.
    const events = `[{"id": 1, "action": "run", "tool_call_metadata": {"model_response": {"choices": [{"message": {"role": "assistant"`
    assert.deepStrictEqual(Importer.detect(events), Option.some("openhands"))
    // A long Claude Code line that holds a `messages` array somewhere.
    const long = `{"parentUuid":null,"type":"user","message":{"messages": [1]${"a".repeat(70_000)}`
    assert.deepStrictEqual(Importer.detect(long.slice(0, Importer.detectionSampleBytes)), Option.some("claude-code"))
    // The file name breaks a tie only: a pretty-printed object of unknown keys named `.traj`.
    assert.deepStrictEqual(Importer.detect("{\n \"foo\": 1", "run.traj"), Option.some("swe-agent"))
    assert.isTrue(Option.isNone(Importer.detect("{\n \"foo\": 1", "run.json")))
  })
})

describe("sessionIdFromPath", () => {
  it("drops the directories and the .jsonl/.json/.traj extensions", () => {
    assert.strictEqual(Importer.sessionIdFromPath("examples/coding-session.jsonl"), "coding-session")
    assert.strictEqual(Importer.sessionIdFromPath("/runs/pydicom-1458.traj.json"), "pydicom-1458")
    assert.strictEqual(Importer.sessionIdFromPath("C:\\logs\\chat.JSON"), "chat")
    assert.strictEqual(Importer.sessionIdFromPath("notes.v2.txt"), "notes.v2.txt")
    assert.strictEqual(Importer.sessionIdFromPath(".jsonl"), "default")
  })
})
