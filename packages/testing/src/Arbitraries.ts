/**
 * fast-check arbitraries for precis data, built on the core Schemas: turns,
 * sessions whose tool calls and results are paired by id as the importers
 * write them, summary records and provider behaviours.
 *
 * @since 0.1.0
 */
import { ConversationTurn, SummaryRecord, ToolMetadata } from "@precis/core"
import * as FastCheck from "effect/FastCheck"
import * as Outcomes from "./ScriptedProvider.js"

const MIN_TIME = Date.UTC(2020, 0, 1)
const MAX_TIME = Date.UTC(2030, 0, 1)

/**
 * ISO-8601 timestamps between 2020 and 2030.
 *
 * @since 0.1.0
 */
export const timestamp: FastCheck.Arbitrary<string> = FastCheck.integer({ min: MIN_TIME, max: MAX_TIME }).map((ms) =>
  new Date(ms).toISOString()
)

/**
 * Text mixing ASCII, emoji, CJK and combining marks (surrogate pairs
 * included); never U+0000, which no turn may hold (`ConversationTurn.Content`).
 *
 * @since 0.1.0
 */
export const text: FastCheck.Arbitrary<string> = FastCheck.array(
  FastCheck.oneof(
    FastCheck.string({ maxLength: 12 }),
    FastCheck.constantFrom("😀", "👩‍💻", "漢字", "e\u0301", "𝔘𝔫𝔦", "\n", "  ", "`", "```", "## Transcript"),
    FastCheck.fullUnicodeString({ maxLength: 6 })
  ),
  { maxLength: 40 }
).map((parts) => parts.join("").replaceAll("\u0000", ""))

/**
 * @since 0.1.0
 */
export const role: FastCheck.Arbitrary<string> = FastCheck.constantFrom("user", "assistant", "system", "tool")

/**
 * Conversation turns with optional timestamps and ids.
 *
 * @since 0.1.0
 */
export const turn: FastCheck.Arbitrary<ConversationTurn.ConversationTurn> = FastCheck.record(
  {
    role,
    content: text,
    id: FastCheck.uuid(),
    timestamp
  },
  { requiredKeys: ["role", "content"] }
).map((fields) => ConversationTurn.make(fields))

/** A tool call before its id is given: the tool's name and its arguments (a JSON object, as text). */
interface Call {
  readonly name: string
  readonly arguments: string
}

const call: FastCheck.Arbitrary<Call> = FastCheck.oneof(
  text.map((command) => ({ name: "Bash", arguments: JSON.stringify({ command }) })),
  text.map((path) => ({ name: "Read", arguments: JSON.stringify({ file_path: path }) })),
  FastCheck.tuple(text, text).map(([path, content]) => ({ name: "Write", arguments: JSON.stringify({ file_path: path, content }) })),
  FastCheck.tuple(text, text).map(([pattern, path]) => ({ name: "Grep", arguments: JSON.stringify({ pattern, path }) })),
  text.map((input) => ({ name: "custom_tool", arguments: JSON.stringify({ input }) }))
)

/**
 * How an assistant turn that makes several calls at once is written:
 * `"one turn"`, one assistant turn holding every call (the OpenAI format,
 * SWE-agent, OpenHands); `"a turn per call"`, one assistant turn per call
 * (Claude Code writes each block of a reply on a line of its own).
 *
 * @since 0.1.0
 */
export type ParallelCalls = "one turn" | "a turn per call"

/** A part of a session: one free turn, or tool calls and their results. */
type Segment =
  | { readonly _tag: "Turn"; readonly turn: ConversationTurn.ConversationTurn }
  | {
    readonly _tag: "Calls"
    readonly prose: string | undefined
    readonly calls: ReadonlyArray<Call>
    readonly layout: ParallelCalls
    /** The results: the index of the call each answers, in the order they come; some may be missing. */
    readonly results: ReadonlyArray<{ readonly call: number; readonly content: string; readonly isError: boolean }>
  }

const exchange = (layouts: ReadonlyArray<ParallelCalls>): FastCheck.Arbitrary<Segment> =>
  FastCheck.record({
    prose: FastCheck.option(text, { nil: undefined }),
    calls: FastCheck.array(call, { minLength: 1, maxLength: 4 }),
    layout: FastCheck.constantFrom(...layouts),
    answered: FastCheck.boolean()
  }).chain(({ answered, calls, layout, prose }) => {
    const indices = calls.map((_, i) => i)
    // The results come in any order; in half the exchanges one call may go unanswered (a run that stopped).
    const order = FastCheck.shuffledSubarray(indices, {
      minLength: answered ? calls.length : calls.length - 1,
      maxLength: calls.length
    })
    const contents = FastCheck.array(FastCheck.tuple(text, FastCheck.boolean()), {
      minLength: calls.length,
      maxLength: calls.length
    })
    return FastCheck.tuple(order, contents)
      .map(([answeredCalls, contents]): Segment => ({
        _tag: "Calls",
        prose,
        calls,
        layout,
        results: answeredCalls.map((i, k) => ({ call: i, content: contents[k]![0], isError: contents[k]![1] }))
      }))
  })

/**
 * How calls are numbered: `unique` in the session (`call-0`, `call-1`, ...), or `per response` (`call_0`,
 * `call_1` again in every exchange, as providers and agents that number their calls per response do).
 */
type CallIds = "unique" | "per response"

/** The turns of the segments, each call given an id as `ids` says. */
const toTurns = (segments: ReadonlyArray<Segment>, ids: CallIds): Array<ConversationTurn.ConversationTurn> => {
  let next = 0
  return segments.flatMap((segment) => {
    if (segment._tag === "Turn") return [segment.turn]
    const calls = segment.calls.map((c, i) => ({ id: ids === "unique" ? `call-${next++}` : `call_${i}`, ...c }))
    const assistant = (some: typeof calls, prose: string | undefined) =>
      ConversationTurn.make({
        role: "assistant",
        content: [...(prose === undefined ? [] : [prose]), ...some.map((c) => ToolMetadata.callLine(c.name, c.arguments))].join("\n"),
        metadata: ToolMetadata.make({ toolCalls: some })
      })
    const asked = segment.layout === "one turn"
      ? [assistant(calls, segment.prose)]
      : calls.map((c, i) => assistant([c], i === 0 ? segment.prose : undefined))
    const answers = segment.results.map((result) =>
      ConversationTurn.make({
        role: "tool",
        content: result.content,
        metadata: ToolMetadata.make({
          toolCallId: calls[result.call]!.id,
          toolName: calls[result.call]!.name,
          isError: result.isError ? true : undefined
        })
      })
    )
    return [...asked, ...answers]
  })
}

/**
 * The turns of a session: free turns (as {@link turn} makes them) and tool
 * exchanges as the importers write them: an assistant turn whose content
 * holds a `[tool_call NAME] ARGUMENTS` line per call and whose metadata lists
 * the calls (`toolCalls`, each with an id), then a `tool` turn per call
 * answered (`toolCallId`, `toolName`, sometimes `isError`) in any order.
 * Parallel calls (up to 4) are written as `parallelCalls` says (both ways by
 * default). Call ids are unique in the session, or with `callIds: "per
 * response"` numbered again in each exchange (`call_0`, `call_1`); at most
 * `maxLength` turns.
 *
 * @example
 * ```ts
 * import { Arbitraries } from "@precis/testing"
 * import * as FastCheck from "effect/FastCheck"
 * FastCheck.sample(Arbitraries.turns({ maxLength: 20, parallelCalls: ["a turn per call"] }), 1)
 * ```
 * @since 0.1.0
 */
export const turns = (
  options: {
    readonly maxLength?: number
    readonly parallelCalls?: ReadonlyArray<ParallelCalls>
    readonly callIds?: CallIds
  } = {}
): FastCheck.Arbitrary<ReadonlyArray<ConversationTurn.ConversationTurn>> => {
  const maxLength = options.maxLength ?? 40
  const segment = FastCheck.oneof(
    { arbitrary: turn.map((t): Segment => ({ _tag: "Turn", turn: t })), weight: 3 },
    { arbitrary: exchange(options.parallelCalls ?? ["one turn", "a turn per call"]), weight: 1 }
  )
  return FastCheck.array(segment, { maxLength, size: "max" }).map((segments) => {
    // Whole segments only: a call cut from its results by the limit would be a session no importer writes.
    const kept: Array<Segment> = []
    let count = 0
    for (const segment of segments) {
      const size = segment._tag === "Turn"
        ? 1
        : (segment.layout === "one turn" ? 1 : segment.calls.length) + segment.results.length
      if (count + size > maxLength) break
      kept.push(segment)
      count += size
    }
    return toTurns(kept, options.callIds ?? "unique")
  })
}

/**
 * Summary records of depth 0 to 3, with or without a time range.
 *
 * @since 0.1.0
 */
export const summaryRecord: FastCheck.Arbitrary<SummaryRecord.SummaryRecord> = FastCheck.record(
  {
    id: FastCheck.uuid(),
    depth: FastCheck.integer({ min: 0, max: 3 }),
    content: text,
    timeRangeStart: timestamp,
    timeRangeEnd: timestamp
  },
  { requiredKeys: ["id", "depth", "content"] }
).map((fields) => SummaryRecord.make(fields))

/**
 * Any provider behaviour: short, long and blank replies, typed failures,
 * defects, hangs and replies delayed by 1 to 300 seconds (never exactly 120).
 *
 * @since 0.1.0
 */
export const outcome: FastCheck.Arbitrary<Outcomes.Outcome> = FastCheck.oneof(
  FastCheck.string({ maxLength: 8 }).map((s) => Outcomes.reply(`ok ${s}`)),
  FastCheck.string({ minLength: 1, maxLength: 20 }).map((s) => Outcomes.reply(s.repeat(400))),
  FastCheck.constantFrom("", "   ", "\n\t").map((s) => Outcomes.reply(s)),
  FastCheck.constant(Outcomes.fail(Outcomes.transportError())),
  FastCheck.constant(Outcomes.die()),
  FastCheck.constant(Outcomes.hang),
  // Never exactly 120 s, the default tier deadline, where a reply and the timeout would tie.
  FastCheck.integer({ min: 1, max: 299 }).map((s) => Outcomes.delayed(`${s >= 120 ? s + 1 : s} seconds`, "late reply"))
)
