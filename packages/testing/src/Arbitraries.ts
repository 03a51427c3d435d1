/**
 * fast-check arbitraries for precis data, built on the core Schemas.
 *
 * @since 0.1.0
 */
import { ConversationTurn, SummaryRecord } from "@precis/core"
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
