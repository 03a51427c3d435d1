import { describe, expect, it } from "@effect/vitest"
import * as ConversationTurn from "../src/ConversationTurn.js"
import * as LeafDigest from "../src/LeafDigest.js"
import * as Prompt from "../src/Prompt.js"
import * as SummaryTask from "../src/SummaryTask.js"

const ID = "d35f0cc4-428d-436c-b878-0a1b2c3d4e5f"
const body = (n: number, line: (i: number) => string) => Array.from({ length: n }, (_, i) => line(i + 1))
const digestOf = (turns: ReadonlyArray<SummaryTask.Turn>) => LeafDigest.turns(turns).map((t) => t.content)

describe("LeafDigest.turns", () => {
  it("keeps a short turn whole", () => {
    const turn = { role: "tool", content: "ok\nline two\nline three", id: ID }
    expect(LeafDigest.turns([turn])[0]).toBe(turn)
  })

  it("a file read: its path and size, and the lines with the names later turns refer to", () => {
    const turns = SummaryTask.turnsOf([
      ConversationTurn.make({
        role: "assistant",
        content: "",
        metadata: { toolCalls: [{ id: "r1", name: "Bash", arguments: JSON.stringify({ command: "cat lib/otel.ex" }) }] }
      }),
      ConversationTurn.make({
        role: "tool",
        id: ID,
        content: [
          ...body(20, (i) => `  # comment ${i} of the module`),
          "  @endpoint Application.get_env(:spotter, :otel_endpoint)",
          ...body(20, (i) => `  # more ${i}`)
        ].join("\n"),
        metadata: { toolCallId: "r1" }
      }),
      ConversationTurn.make({ role: "assistant", content: "The endpoint comes from `:otel_endpoint`." })
    ])
    const [, read] = digestOf(turns)
    expect(read).toBe("printed lib/otel.ex (41 lines)")
    // A listing whose call is out of sight: its first line, the line with the path a later turn refers to.
    const listing = [
      "read lib/exporter.ts (42 lines)",
      ...body(20, (i) => `  const step${i} = ${i}`),
      "  import { endpoint } from \"./config/otel.ts\"",
      ...body(20, (i) => `  const more${i} = ${i}`)
    ].join("\n")
    const [digest] = digestOf([{ role: "tool", content: listing, id: ID }, { role: "user", content: "why ./config/otel.ts?" }])
    expect(digest!.split("\n")).toEqual([
      "read lib/exporter.ts (42 lines)",
      "[… 20 lines; read d35f0cc4]",
      "  import { endpoint } from \"./config/otel.ts\"",
      "[… 20 lines; read d35f0cc4]"
    ])
  })

  it("a command with an error in its middle: the status, the error line and the result, the rest marked", () => {
    const output = [
      "ok",
      ...body(15, (i) => `compiling module ${i}`),
      "TypeError: Cannot read properties of undefined (reading 'span')",
      ...body(15, (i) => `step ${i} done`),
      "Tests  3 failed | 40 passed (43)"
    ].join("\n")
    const [digest] = digestOf([{ role: "tool", content: output, id: ID }])
    expect(digest!.split("\n")).toEqual([
      "ok",
      "[… 15 lines; read d35f0cc4]",
      "TypeError: Cannot read properties of undefined (reading 'span')",
      "[… 15 lines; read d35f0cc4]",
      "Tests  3 failed | 40 passed (43)"
    ])
  })

  it("a long message: its start, its end and the lines with keys", () => {
    const message = [
      "Here is the plan for the exporter.",
      "First we look at the options.",
      ...body(10, (i) => `Thought number ${i} about the design.`),
      "Then edit `packages/core/src/Prompt.ts` to send the digest.",
      ...body(10, (i) => `Another thought ${i} without names.`),
      "That is all for now.",
      "Shall I go on?"
    ].join("\n")
    const [digest] = digestOf([{ role: "assistant", content: message }])
    expect(digest!.split("\n")).toEqual([
      "Here is the plan for the exporter.",
      "First we look at the options.",
      "[… 10 lines]",
      "Then edit `packages/core/src/Prompt.ts` to send the digest.",
      "[… 10 lines]",
      "That is all for now.",
      "Shall I go on?"
    ])
  })

  it("a key said again later is not a reason to keep the later line", () => {
    const first = { role: "user", content: "Look at src/app.ts" }
    const again = body(12, (i) => i === 6 ? "src/app.ts once more" : `filler ${i} of a long message`).join("\n")
    const [, digest] = digestOf([first, { role: "assistant", content: again }])
    expect(digest).not.toContain("once more")
  })
})

describe("Prompt.forTask for a leaf", () => {
  it("sends the digest and says how to read a whole turn", () => {
    const content = ["ok", ...body(30, (i) => `noise ${i}`), "1 error"].join("\n")
    const prompt = Prompt.forTask({ kind: "leaf", turns: [{ role: "tool", content, id: ID }], targetTokens: 100 })
    expect(prompt).toContain("[… 30 lines; read d35f0cc4]")
    expect(prompt).not.toContain("noise 12")
    expect(prompt).toContain("`[… N lines; read ID]` marks what was left out of the turn ID")
  })
})
