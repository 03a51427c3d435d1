import { describe, expect, it } from "@effect/vitest"
import { Transcript } from "@precis/core"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Fidelity from "../src/fidelity/Fidelity.js"
import * as Probe from "../src/fidelity/Probe.js"
import * as Sessions from "../src/fidelity/Sessions.js"
import * as Inputs from "../src/Inputs.js"

const probe = (id: string, ...needles: [Probe.Needle, ...Array<Probe.Needle>]): Probe.Probe => ({
  id,
  category: "state",
  description: id,
  needles
})

describe("Probe", () => {
  it("finds a string needle whatever its case, and not a missing one", () => {
    const text = Probe.haystack("Ran bd update spotter-4te.1 --status IN_PROGRESS")
    expect(Probe.found("in_progress", text)).toBe(true)
    expect(Probe.found("SPOTTER-4TE.1", text)).toBe(true)
    expect(Probe.found("spotter-4te.2", text)).toBe(false)
  })

  it("matches a regex needle case-insensitively, within a line, the same way every time", () => {
    const needle = /4te\.1\b.{0,20}closed/g
    const text = Probe.haystack("spotter-4te.1 is CLOSED")
    expect(Probe.found(needle, text)).toBe(true)
    expect(Probe.found(needle, text)).toBe(true) // a `g` flag would make a shared RegExp stateful
    expect(Probe.found(needle, Probe.haystack("spotter-4te.1 is\nclosed"))).toBe(false)
    expect(Probe.found(needle, Probe.haystack("spotter-4te.10 is closed"))).toBe(false)
  })

  it("keeps a probe when any of its needles occurs", () => {
    const p = probe("p", "telemetry/otel.ex", "Telemetry.Otel")
    expect(Probe.kept(p, Probe.haystack("created Spotter.Telemetry.Otel"))).toBe(true)
    expect(Probe.kept(p, Probe.haystack("created otel.ex"))).toBe(false)
  })

  it("scores a text: the probes it keeps and misses, in the probes' order", () => {
    const probes = [probe("a", "alpha"), probe("b", /be+ta/), probe("c", "gamma"), probe("d", "delta", "DELTA")]
    expect(Probe.score(probes, "Delta then beeeta")).toEqual({ kept: ["b", "d"], missed: ["a", "c"] })
  })

  it("shows needles as written", () => {
    expect([Probe.show("bd ready"), Probe.show(/gqc\.6.{0,9}x/)]).toEqual(["bd ready", "/gqc\\.6.{0,9}x/"])
  })
})

describe("Fidelity.tail", () => {
  it("keeps as many code points from the end as head truncation keeps from the start", () => {
    const text = "0123456789abcdefghij" // 20 code points, 5 tokens
    expect(Fidelity.tail(text, 2)).toBe("cdefghij")
    expect(Fidelity.tail(text, 50)).toBe(text)
    expect(Fidelity.tail("ab😀😀😀😀😀😀", 1)).toBe("😀😀😀😀")
  })
})

describe("Fidelity.texts", () => {
  const transcript = `${"a".repeat(400)}${"z".repeat(400)}` // 200 tokens
  const context = "c".repeat(80) // 20 tokens
  const contextNotExpanded = "n".repeat(40) // 10 tokens
  const summaries = `${"s".repeat(40)}${"t".repeat(40)}` // 20 tokens

  it("without a reference: the whole transcript, the contexts, the summaries whole and truncations at the context's size", () => {
    const all = Fidelity.texts({ transcript, context, contextNotExpanded, summaries, reference: undefined })
    expect(all.map((t) => t.method)).toEqual([
      Fidelity.methodNames.transcript,
      Fidelity.methodNames.context,
      Fidelity.methodNames.contextNotExpanded,
      Fidelity.methodNames.summariesWhole,
      Fidelity.methodNames.headContext,
      Fidelity.methodNames.tailContext
    ])
    const text = (method: string) => all.find((t) => t.method === method)?.text
    expect(text(Fidelity.methodNames.contextNotExpanded)).toBe(contextNotExpanded)
    expect(text(Fidelity.methodNames.headContext)).toBe("a".repeat(80))
    expect(text(Fidelity.methodNames.tailContext)).toBe("z".repeat(80))
  })

  it("with a reference: the summaries and the truncations at the reference's size, and the reference itself", () => {
    const reference = "r".repeat(40) // 10 tokens
    const contextAtReference = "k".repeat(40)
    const all = Fidelity.texts({ transcript, context, contextAtReference, contextNotExpanded, summaries, reference })
    const text = (method: string) => all.find((t) => t.method === method)?.text
    // The context at the reference's size is a headline beside the one at 16k.
    expect(all.map((t) => t.method).slice(0, 3)).toEqual([
      Fidelity.methodNames.transcript,
      Fidelity.methodNames.context,
      Fidelity.methodNames.contextAtReference
    ])
    expect(text(Fidelity.methodNames.contextAtReference)).toBe(contextAtReference)
    expect(text(Fidelity.methodNames.summaries)).toBe("s".repeat(40))
    expect(text(Fidelity.methodNames.summariesWhole)).toBe(summaries)
    expect(text(Fidelity.methodNames.headReference)).toBe("a".repeat(40))
    expect(text(Fidelity.methodNames.tailReference)).toBe("z".repeat(40))
    expect(text(Fidelity.methodNames.reference)).toBe(reference)
  })
})

describe("Fidelity.figures", () => {
  const result = (method: string, kept: number, tokens = 100): Fidelity.MethodResult => ({
    method,
    tokens,
    kept: Array.from({ length: kept }, (_, i) => `p${i}`),
    missed: []
  })

  it("compares each method with the reference compaction: the context at 16k against 100%, at the reference's size against 90%, the summaries against 60%", () => {
    const figures = Fidelity.figures([{
      session: "s",
      probes: 40,
      methods: [
        result(Fidelity.methodNames.transcript, 40),
        result(Fidelity.methodNames.context, 35),
        result(Fidelity.methodNames.contextAtReference, 30),
        result(Fidelity.methodNames.summaries, 18),
        result(Fidelity.methodNames.headReference, 10),
        result(Fidelity.methodNames.reference, 34, 3900)
      ]
    }])
    const by = (name: string) => figures.find((f) => f.name === `s: ${name}`)
    expect(figures.map((f) => f.name)).not.toContain(`s: ${Fidelity.methodNames.reference}`)
    expect(by(Fidelity.methodNames.context)).toMatchObject({
      value: 35,
      unit: "probes",
      baseline: { name: Fidelity.methodNames.reference, value: 34 },
      target: { op: ">=", value: 1, on: "ratio" },
      pass: true
    })
    expect(by(Fidelity.methodNames.context)?.ratio).toBeCloseTo(35 / 34)
    // 30 of the reference's 34 is 0.88: under the 90% target.
    expect(by(Fidelity.methodNames.contextAtReference)).toMatchObject({ target: { value: 0.9 }, pass: false })
    expect(by(Fidelity.methodNames.summaries)).toMatchObject({ target: { value: 0.6 }, pass: false })
    expect(by(Fidelity.methodNames.summaries)?.ratio).toBeCloseTo(18 / 34)
    expect(by(Fidelity.methodNames.headReference)?.target).toBeUndefined()
    expect(by(Fidelity.methodNames.headReference)?.ratio).toBeCloseTo(10 / 34)
    expect(by(Fidelity.methodNames.transcript)?.ratio).toBeCloseTo(40 / 34)
  })

  it("without a reference compares with the whole transcript and sets no target", () => {
    const figures = Fidelity.figures([{
      session: "e",
      probes: 20,
      methods: [result(Fidelity.methodNames.transcript, 20), result(Fidelity.methodNames.context, 15)]
    }])
    expect(figures).toHaveLength(1)
    expect(figures[0]).toMatchObject({ name: `e: ${Fidelity.methodNames.context}`, baseline: { value: 20 } })
    expect(figures[0]?.ratio).toBeCloseTo(0.75)
    expect(figures[0]?.target).toBeUndefined()
  })
})

describe("Sessions", () => {
  it("finds the compact boundary line, and none in a transcript without one", () => {
    const lines = [
      JSON.stringify({ type: "user", message: { content: "mentions compact_boundary in prose" } }),
      JSON.stringify({ type: "system", subtype: "compact_boundary", content: "Conversation compacted" }),
      JSON.stringify({ type: "user", message: { content: "after" } })
    ]
    expect(Sessions.boundaryLine(lines.join("\n"))).toBe(2)
    expect(Sessions.boundaryLine(lines[0]!)).toBeUndefined()
  })

  it("reads the span after the compact boundary as turns (none without a boundary)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "precis-continuation-"))
    const line = (type: string, text: string, uuid: string) =>
      JSON.stringify({ type, uuid, timestamp: "2026-02-12T14:00:00Z", sessionId: "s", message: { role: type, content: text } })
    const file = path.join(dir, "session.jsonl")
    fs.writeFileSync(file, [
      line("user", "before the boundary", "u1"),
      JSON.stringify({ type: "system", subtype: "compact_boundary", content: "Conversation compacted" }),
      line("user", "continue implementation", "u2"),
      line("assistant", "Going on with the next task.", "a1")
    ].join("\n"))
    expect(Sessions.continuation(file).map((t) => t.content)).toEqual(["continue implementation", "Going on with the next task."])
    fs.writeFileSync(file, line("user", "no boundary", "u1"))
    expect(Sessions.continuation(file)).toEqual([])
  })

  it("reads the reference summary: the text of the last assistant message", () => {
    const text = [
      JSON.stringify({ type: "user", message: { content: "Your task is to create a detailed summary" } }),
      JSON.stringify({ type: "assistant", message: { content: [{ type: "text", text: "draft" }] } }),
      JSON.stringify({
        type: "assistant",
        message: { content: [{ type: "thinking", thinking: "hmm" }, { type: "text", text: "<summary>" }, { type: "text", text: "done</summary>" }] }
      }),
      ""
    ].join("\n")
    expect(Sessions.referenceSummary(text)).toBe("<summary>\ndone</summary>")
    expect(Sessions.referenceSummary("not json\n")).toBeUndefined()
  })
})

// The probes are fair: every needle of every probe occurs in the raw transcript
// before the compact boundary, and in that span as precis imports and renders it.
const fairness = (session: Sessions.Session, expected: { boundary: number | undefined; minProbes: number }) => () => {
  const span = Sessions.span(session.file)
  expect(span.boundary).toBe(expected.boundary)
  expect(session.probes.length).toBeGreaterThanOrEqual(expected.minProbes)
  expect(new Set(session.probes.map((p) => p.id)).size).toBe(session.probes.length)
  const raw = Probe.haystack(span.raw)
  const rendered = Probe.haystack(Transcript.formatTurns(span.turns))
  const unfair = session.probes.flatMap((p) =>
    p.needles.flatMap((n) => [
      ...(Probe.found(n, raw) ? [] : [`${p.id}: ${Probe.show(n)} not in the raw transcript`]),
      ...(Probe.found(n, rendered) ? [] : [`${p.id}: ${Probe.show(n)} not in the imported turns`])
    ])
  )
  expect(unfair).toEqual([])
  expect(session.probes.every((p) => p.needles.length >= 1 && p.needles.length <= 3)).toBe(true)
}

const session = (name: string): Sessions.Session => Sessions.all.find((s) => s.name === name)!

describe("probe lists", () => {
  it("coding-session: every needle occurs in the example session", fairness(session("coding-session"), { boundary: undefined, minProbes: 20 }))

  describe.skipIf(!fs.existsSync(Inputs.fixturesDir))("Claude Code fixtures", () => {
    it(
      "claude-code-spotter-ae4a77f8: every needle occurs before the boundary (line 1481)",
      fairness(session("claude-code-spotter-ae4a77f8"), { boundary: 1481, minProbes: 30 })
    )
    it(
      "claude-code-spotter-258c7280: every needle occurs before the boundary (line 1256)",
      fairness(session("claude-code-spotter-258c7280"), { boundary: 1256, minProbes: 30 })
    )
  })
})

describe("Fidelity.measure", () => {
  it("measures the example session end to end and dumps each method's text", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "precis-fidelity-"))
    try {
      const example = session("coding-session")
      const details = await Fidelity.measure(example, dir)
      expect(details.methods.map((m) => m.method)).toEqual([
        Fidelity.methodNames.transcript,
        Fidelity.methodNames.context,
        Fidelity.methodNames.contextNotExpanded,
        Fidelity.methodNames.contextTuned,
        Fidelity.methodNames.summariesWhole,
        Fidelity.methodNames.headContext,
        Fidelity.methodNames.tailContext
      ])
      const transcript = details.methods[0]!
      expect(transcript.kept).toHaveLength(example.probes.length)
      const context = details.methods[1]!
      expect(context.tokens).toBeLessThanOrEqual(Fidelity.budget)
      expect(details.summaries).toBeGreaterThan(0)
      const files = fs.readdirSync(path.join(dir, "coding-session")).sort()
      expect(files).toEqual([
        "head-truncation-context-size.txt",
        "imported-transcript-whole.txt",
        "precis-context-16k-not-expanded.txt",
        "precis-context-16k-tuned-leaf-chunk-tokens-1000-fresh-tail-8.txt",
        "precis-context-16k.txt",
        "precis-summaries-whole.txt",
        "probes.md",
        "tail-truncation-context-size.txt"
      ])
      const dumped = fs.readFileSync(path.join(dir, "coding-session", "precis-context-16k.txt"), "utf8")
      expect(Probe.score(example.probes, dumped).kept).toEqual(context.kept)
      expect(fs.readFileSync(path.join(dir, "coding-session", "probes.md"), "utf8")).toContain(
        `| kept | | | ${example.probes.length}/${example.probes.length} |`
      )
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})
