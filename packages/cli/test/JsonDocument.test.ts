/**
 * A settings document edited as text (`internal/jsonDocument.ts`): adding an
 * entry and taking it out again gives the text back byte for byte, whatever
 * the file's layout — compact, indented with spaces or tabs, CRLF, comments
 * before, after and inside, trailing commas, numbers JavaScript cannot hold —
 * and what was added is laid out as the file is.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as JsonDocument from "../src/internal/jsonDocument.js"

const documents = [
  "{}",
  "{}\n",
  "{\"a\":1}",
  "{\n  \"a\": 1\n}\n",
  "{\n  \"a\": 1,\n}\n",
  "{\n  \"a\": 1 // the last\n}\n",
  "{\r\n  \"a\": [1,\r\n 2]\r\n}",
  "// head\n{\n\t\"x\": {\"y\": [ ]}\n}\n// tail\n",
  "{\n    \"n\": 12345678901234567890, \"inf\": 1e400, \"f\": 1.0,\n    \"d\": 1, \"d\": 2, /* dup */\n    \"s\": \"\\u00e9\"\n}\n",
  "{\n  \"mcpServers\": {\n    \"other\": { \"command\": \"x\" } // theirs\n  },\n  \"hooks\": { \"Stop\": [] }\n}\n"
]

const parse = (text: string) => Either.getOrThrow(JsonDocument.parse(text))

describe("JsonDocument.set", () => {
  for (const text of documents) {
    it(`adding and taking out an entry gives ${JSON.stringify(text).slice(0, 40)}… back`, () => {
      const doc = parse(text)
      const others = (doc.value.mcpServers ?? {}) as Record<string, unknown>
      const server = { command: "node", args: ["/p.js", "mcp"] }
      const added = JsonDocument.set(doc, ["mcpServers", "precis"], server)
      assert.deepStrictEqual(added.value.mcpServers, { ...others, precis: server })
      const removed = Object.keys(others).length > 0
        ? JsonDocument.set(added, ["mcpServers", "precis"], undefined)
        : JsonDocument.set(added, ["mcpServers"], undefined)
      assert.strictEqual(removed.text, text)

      const hooks = (doc.value.hooks ?? {}) as Record<string, unknown>
      const withHook = JsonDocument.set(doc, ["hooks", "PreCompact", -1], { hooks: [{ type: "command", command: "c" }] })
      assert.deepStrictEqual(Object.keys(withHook.value.hooks as object), [...Object.keys(hooks), "PreCompact"])
      const back = Object.keys(hooks).length > 0
        ? JsonDocument.set(withHook, ["hooks", "PreCompact"], undefined)
        : JsonDocument.set(withHook, ["hooks"], undefined)
      assert.strictEqual(back.text, text)
    })
  }

  it("lays a new entry out in the file's indentation, and compact in a container written on one line", () => {
    const tabs = JsonDocument.set(parse("{\n\t\"a\": 1\n}\n"), ["b"], { c: [1] })
    assert.strictEqual(tabs.text, "{\n\t\"a\": 1,\n\t\"b\": {\n\t\t\"c\": [\n\t\t\t1\n\t\t]\n\t}\n}\n")
    const compact = JsonDocument.set(parse("{\"a\":1}"), ["b"], { c: 1 })
    assert.strictEqual(compact.text, "{\"a\":1,\"b\": {\"c\":1}}")
    const replaced = JsonDocument.set(parse("{\n  \"a\": { \"x\": 1 }, // keep\n  \"z\": 0\n}\n"), ["a", "x"], [2])
    assert.strictEqual(replaced.text, "{\n  \"a\": { \"x\": [2] }, // keep\n  \"z\": 0\n}\n")
    const spread = JsonDocument.set(parse("{\n  \"a\": {\n    \"x\": 1\n  }\n}\n"), ["a", "x"], [2])
    assert.strictEqual(spread.text, "{\n  \"a\": {\n    \"x\": [\n      2\n    ]\n  }\n}\n")
  })

  it("takes out a list's last item whole, after one or more others (jsonc-parser alone leaves its last character)", () => {
    for (const [text, path, expected] of [
      ["{\"P\": [1, 2]}", ["P", 1], "{\"P\": [1]}"],
      ["{\"P\": [{ \"h\": [1] },\n  {\n    \"b\": 2\n  }]\n}", ["P", 1], "{\"P\": [{ \"h\": [1] }]\n}"],
      ["{\"P\": [1, 2, 3]}", ["P", 2], "{\"P\": [1, 2]}"],
      ["{\"P\": [1, 2, 3]}", ["P", 1], "{\"P\": [1, 3]}"]
    ] as const) {
      assert.strictEqual(JsonDocument.set(parse(text), path, undefined).text, expected)
    }
  })

  it("parse refuses what is not a JSON object, saying where", () => {
    expect(JsonDocument.parse("{ \"a\": }")).toEqual(Either.left("not valid JSON (line 1: ValueExpected)"))
    expect(JsonDocument.parse("[1]")).toEqual(Either.left("not a JSON object"))
    expect(JsonDocument.parse("  \n")).toEqual(Either.right({ text: "  \n", value: {} }))
  })
})
