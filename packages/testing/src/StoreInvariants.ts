/**
 * Checkers of the store's invariants, for tests: {@link violations} reads the
 * tables of a SQL store directly (not through the port) and returns every
 * violation it finds, as text; {@link contextViolations} checks a context
 * shown to a model against the store.
 *
 * @example
 * ```ts
 * import { StoreInvariants } from "@precis/testing"
 * // after a compaction, over the store's SqlClient:
 * const problems = StoreInvariants.violations({ freshTailTurns: 16, minFanIn: 4, maxFanIn: 8 })
 * // Effect<Array<string>, unknown, SqlClient>: [] when the store is consistent
 * ```
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { ConversationTurn, TokenEstimator, ToolMetadata, ToolUse } from "@precis/core"
import { DagStore, type StoreError, Tables, TurnStore } from "@precis/store"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/**
 * What a store is expected to hold beyond its structural invariants.
 *
 * @since 0.1.0
 */
export interface Expectations {
  /** The fresh tail of every run: the newest `freshTailTurns` turns of each session are uncovered. */
  readonly freshTailTurns?: number
  /** Bounds of every condensed summary's fan-in. */
  readonly minFanIn?: number
  readonly maxFanIn?: number
  /** Parentless summaries per depth stay below `minFanIn` (true after a completed compaction). */
  readonly condensedFully?: boolean
  /**
   * Tool calls and their results paired by id, each result with the nearest call of its id still
   * waiting (`ToolUse.pairBy`; a call's id in an assistant
   * turn's `toolCalls`, a result's `toolCallId`, as `ToolMetadata.read` reads
   * them): a result is covered exactly when its call is, so the two are never
   * on either side of the boundary between the summarized turns and the fresh
   * tail, and a covered pair is in one leaf.
   */
  readonly toolPairs?: boolean
}

// Tiers are read as text, so that an unknown one is reported rather than failing the read.
const SummaryRow = Schema.Struct({ ...Tables.SummaryRow.fields, tier: Schema.String })
type TurnRow = Tables.TurnRow

const isToolResult = (turn: TurnRow) => ConversationTurn.isToolResult({ role: turn.role, metadata: turn.metadata ?? undefined })

const minMax = (values: ReadonlyArray<string | null>) => {
  const present = values.filter((v): v is string => v !== null && v.length > 0).map((v) => Date.parse(v))
  return present.length === 0
    ? { min: null, max: null }
    : { min: Math.min(...present), max: Math.max(...present) }
}

const instantOf = (value: string | null) => (value === null ? null : Date.parse(value))

const turnKey = (session: string, id: string) => `${session}\u0000${id}`

/** The violations of {@link Expectations.toolPairs}: each result against the turn whose call it answers. */
const pairViolations = (
  perSession: ReadonlyMap<string, ReadonlyArray<TurnRow>>,
  leafOf: ReadonlyMap<string, string>
): Array<string> => {
  const out: Array<string> = []
  for (const [session, list] of perSession) {
    // Each result with the nearest call of its id still waiting (ids may be reused: `call_0` per response).
    const { pairs } = ToolUse.pairBy(
      list,
      (turn) => (ToolMetadata.read(turn.metadata ?? undefined).toolCalls ?? []).flatMap((call) => (call.id === undefined ? [] : [call.id])),
      (turn) => {
        const callId = ToolMetadata.read(turn.metadata ?? undefined).toolCallId
        return callId === undefined ? [] : [callId]
      }
    )
    for (const { call, id: callId, result } of pairs) {
      const turn = list[result]!
      const caller = list[call]!
      const resultLeaf = leafOf.get(turnKey(session, turn.id))
      const callLeaf = leafOf.get(turnKey(session, caller.id))
      if ((resultLeaf === undefined) !== (callLeaf === undefined)) {
        out.push(
          `session ${session}: tool result ${turn.id} (seq ${turn.seq}) is ${resultLeaf === undefined ? "in the tail" : "summarized"}` +
            ` but its call ${callId} (turn ${caller.id}, seq ${caller.seq}) is ${callLeaf === undefined ? "in the tail" : "summarized"}`
        )
      } else if (resultLeaf !== callLeaf) {
        out.push(`session ${session}: tool result ${turn.id} and its call ${callId} (turn ${caller.id}) are in different leaves`)
      }
    }
  }
  return out
}

/**
 * Every violated invariant of the store, as a readable line; empty when it is
 * consistent: turns numbered 0..n-1 per session; source rows well formed and
 * pointing at what exists; each turn covered at most once, covered turns a
 * prefix of their session; each summary's text, tier, token estimate
 * (`TokenEstimator.approximate`), descendant count, parent and time range as
 * its sources imply; plus the {@link Expectations}.
 *
 * @since 0.1.0
 */
export const violations = (expect: Expectations = {}): Effect.Effect<Array<string>, unknown, SqlClient.SqlClient> =>
  Effect.map(readSnapshot, (snapshot) => [
    ...seqViolations(snapshot),
    ...sourceViolations(snapshot),
    ...coverageViolations(snapshot, expect),
    ...(expect.toolPairs === true ? pairViolations(snapshot.perSession, snapshot.leafOf) : []),
    ...snapshot.summaries.flatMap((summary) => summaryViolations(snapshot, summary, expect)),
    ...condensedViolations(snapshot, expect)
  ])

type SummaryRow = typeof SummaryRow.Type

/** The store's rows, read once, with the lookups every check shares. */
interface Snapshot {
  readonly turns: ReadonlyArray<TurnRow>
  readonly summaries: ReadonlyArray<SummaryRow>
  readonly sources: ReadonlyArray<Tables.SourceRow>
  readonly turnByKey: ReadonlyMap<string, TurnRow>
  readonly byId: ReadonlyMap<string, SummaryRow>
  readonly sourcesOf: ReadonlyMap<string, ReadonlyArray<Tables.SourceRow>>
  readonly perSession: ReadonlyMap<string, ReadonlyArray<TurnRow>>
  /** How many source rows link each turn (by `turnKey`). */
  readonly coverCount: ReadonlyMap<string, number>
  /** The leaf each covered turn is in (by `turnKey`). */
  readonly leafOf: ReadonlyMap<string, string>
}

const groupBy = <A>(items: ReadonlyArray<A>, key: (a: A) => string): Map<string, Array<A>> => {
  const out = new Map<string, Array<A>>()
  for (const item of items) {
    const k = key(item)
    const list = out.get(k)
    if (list === undefined) out.set(k, [item])
    else list.push(item)
  }
  return out
}

const readSnapshot = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const read = <A, I>(schema: Schema.Schema<A, I>, rows: ReadonlyArray<unknown>) =>
    Schema.decodeUnknown(Schema.Array(schema))(rows)
  const turns = yield* read(Tables.TurnRow, yield* sql`SELECT * FROM turns ORDER BY session_id, seq`)
  const summaries = yield* read(SummaryRow, yield* sql`SELECT * FROM summaries`)
  const sources = yield* read(Tables.SourceRow, yield* sql`SELECT * FROM summary_sources ORDER BY summary_id, position`)
  const byId = new Map(summaries.map((s) => [s.id, s]))
  const coverCount = new Map<string, number>()
  const leafOf = new Map<string, string>()
  for (const row of sources) {
    const owner = byId.get(row.summary_id)
    if (owner === undefined || row.turn_id === null) continue
    const key = turnKey(owner.session_id, row.turn_id)
    coverCount.set(key, (coverCount.get(key) ?? 0) + 1)
    leafOf.set(key, row.summary_id)
  }
  return {
    turns,
    summaries,
    sources,
    turnByKey: new Map(turns.map((t) => [turnKey(t.session_id, t.id), t])),
    byId,
    sourcesOf: groupBy(sources, (row) => row.summary_id),
    perSession: groupBy(turns, (t) => t.session_id),
    coverCount,
    leafOf
  } satisfies Snapshot
})

/** Turns: seqs 0..n-1 per session. */
const seqViolations = ({ perSession }: Snapshot): Array<string> =>
  [...perSession].flatMap(([session, list]) =>
    list.flatMap((t, i) => (t.seq === i ? [] : [`session ${session}: turn ${t.id} has seq ${t.seq}, expected ${i}`]))
  )

/** Sources: well formed, pointing at what exists; each turn covered at most once. */
const sourceViolations = ({ byId, coverCount, sources, turnByKey }: Snapshot): Array<string> => {
  const out: Array<string> = []
  for (const row of sources) {
    const owner = byId.get(row.summary_id)
    if (owner === undefined) {
      out.push(`source row of missing summary ${row.summary_id}`)
      continue
    }
    if ((row.turn_id === null) === (row.child_summary_id === null)) {
      out.push(`summary ${row.summary_id} position ${row.position}: exactly one of turn_id/child_summary_id must be set`)
    }
    if (row.turn_id !== null && !turnByKey.has(turnKey(owner.session_id, row.turn_id))) {
      out.push(`summary ${owner.id} links missing turn ${row.turn_id}`)
    }
    if (row.child_summary_id !== null) {
      const child = byId.get(row.child_summary_id)
      if (child === undefined) out.push(`summary ${owner.id} links missing child ${row.child_summary_id}`)
      else if (child.parent_id !== owner.id) out.push(`child ${child.id} of ${owner.id} has parent_id ${child.parent_id}`)
    }
  }
  for (const [key, count] of coverCount) {
    if (count > 1) out.push(`turn ${key.replace("\u0000", "/")} covered ${count} times`)
  }
  return out
}

/** Coverage is a prefix of each session, and the fresh tail is uncovered. */
const coverageViolations = ({ coverCount, perSession }: Snapshot, expect: Expectations): Array<string> => {
  const out: Array<string> = []
  for (const [session, list] of perSession) {
    const covered = list.map((t) => coverCount.has(turnKey(session, t.id)))
    const firstUncovered = covered.indexOf(false)
    if (firstUncovered >= 0 && covered.slice(firstUncovered).some(Boolean)) {
      out.push(`session ${session}: covered turns are not a prefix`)
    }
    if (expect.freshTailTurns === undefined) continue
    const tail = list.slice(Math.max(0, list.length - expect.freshTailTurns))
    if (tail.some((t) => coverCount.has(turnKey(session, t.id)))) out.push(`session ${session}: a fresh-tail turn is covered`)
    const coveredCount = firstUncovered < 0 ? list.length : firstUncovered
    if (expect.freshTailTurns > 0 && coveredCount > 0 && coveredCount < list.length && isToolResult(list[coveredCount]!)) {
      out.push(`session ${session}: tool result ${list[coveredCount]!.id} is separated from its call by the tail boundary`)
    }
  }
  return out
}

const descendantsOf = (sourcesOf: Snapshot["sourcesOf"], id: string): number =>
  (sourcesOf.get(id) ?? []).reduce(
    (n, row) => (row.child_summary_id === null ? n : n + 1 + descendantsOf(sourcesOf, row.child_summary_id)),
    0
  )

/** A summary's rows, text, tier, estimate, descendants and parent as its sources imply. */
const summaryViolations = (snapshot: Snapshot, s: SummaryRow, expect: Expectations): Array<string> => {
  const { byId, sourcesOf } = snapshot
  const out: Array<string> = []
  const rows = sourcesOf.get(s.id) ?? []
  const label = `summary ${s.id} (depth ${s.depth})`
  rows.forEach((row, i) => {
    if (row.position !== i) out.push(`${label}: positions are not 0..n-1`)
  })
  if (s.content.length === 0) out.push(`${label}: empty content`)
  if (!["normal", "aggressive", "fallback"].includes(s.tier)) out.push(`${label}: unknown tier ${s.tier}`)
  if (s.token_estimate !== TokenEstimator.approximate.estimate(s.content)) out.push(`${label}: token_estimate ${s.token_estimate}`)
  const descendants = descendantsOf(sourcesOf, s.id)
  if (s.descendant_count !== descendants) out.push(`${label}: descendant_count ${s.descendant_count}, expected ${descendants}`)
  if (s.parent_id !== null) {
    const parent = byId.get(s.parent_id)
    if (parent === undefined) out.push(`${label}: parent ${s.parent_id} is missing`)
    else {
      if (parent.depth !== s.depth + 1) out.push(`${label}: parent has depth ${parent.depth}`)
      if (parent.session_id !== s.session_id) out.push(`${label}: parent in another session`)
      if (!(sourcesOf.get(parent.id) ?? []).some((row) => row.child_summary_id === s.id)) {
        out.push(`${label}: parent ${parent.id} does not link it`)
      }
    }
  }
  const { expected, problems } = s.depth === 0 ? leafSpan(snapshot, s, rows) : condensedSpan(snapshot, s, rows, expect)
  out.push(...problems.map((problem) => `${label}: ${problem}`))
  if (instantOf(s.time_range_start) !== expected.min || instantOf(s.time_range_end) !== expected.max) {
    out.push(`${label}: time range ${s.time_range_start}..${s.time_range_end} does not span its sources`)
  }
  return out
}

interface Span {
  readonly expected: { readonly min: number | null; readonly max: number | null }
  readonly problems: ReadonlyArray<string>
}

/** A leaf links consecutive turns only; its time range is theirs. */
const leafSpan = ({ turnByKey }: Snapshot, s: SummaryRow, rows: ReadonlyArray<Tables.SourceRow>): Span => {
  const problems: Array<string> = []
  if (rows.length === 0 || rows.some((row) => row.turn_id === null)) problems.push("a leaf must link turns only")
  const linked = rows.flatMap((row) => {
    const t = row.turn_id === null ? undefined : turnByKey.get(turnKey(s.session_id, row.turn_id))
    return t === undefined ? [] : [t]
  })
  linked.forEach((t, i) => {
    if (i > 0 && t.seq !== linked[i - 1]!.seq + 1) problems.push("its turns are not consecutive")
  })
  return { expected: minMax(linked.map((t) => t.timestamp)), problems }
}

/** A condensed summary links summaries one depth below, within the fan-in; its time range spans theirs. */
const condensedSpan = (
  { byId }: Snapshot,
  s: SummaryRow,
  rows: ReadonlyArray<Tables.SourceRow>,
  expect: Expectations
): Span => {
  const problems: Array<string> = []
  if (rows.length === 0 || rows.some((row) => row.child_summary_id === null)) {
    problems.push("a condensed summary must link summaries only")
  }
  if (expect.minFanIn !== undefined && rows.length < expect.minFanIn) problems.push(`fan-in ${rows.length}`)
  if (expect.maxFanIn !== undefined && rows.length > expect.maxFanIn) problems.push(`fan-in ${rows.length}`)
  const kids = rows.flatMap((row) => {
    const c = row.child_summary_id === null ? undefined : byId.get(row.child_summary_id)
    return c === undefined ? [] : [c]
  })
  if (kids.some((c) => c.depth !== s.depth - 1)) problems.push("a child has the wrong depth")
  return {
    expected: {
      min: minMax(kids.map((c) => c.time_range_start)).min,
      max: minMax(kids.map((c) => c.time_range_end)).max
    },
    problems
  }
}

/** After a completed compaction, parentless summaries per depth stay below `minFanIn`. */
const condensedViolations = ({ summaries }: Snapshot, expect: Expectations): Array<string> => {
  if (expect.condensedFully !== true || expect.minFanIn === undefined) return []
  const parentless = new Map<string, number>()
  for (const s of summaries) {
    if (s.parent_id !== null) continue
    const key = `${s.session_id} depth ${s.depth}`
    parentless.set(key, (parentless.get(key) ?? 0) + 1)
  }
  return [...parentless].flatMap(([key, n]) => (n >= expect.minFanIn! ? [`${key}: ${n} parentless summaries left uncondensed`] : []))
}

// The results shown as turns without the call they answer shown before them (`ToolUse.pair` over the
// session's turns: a result whose call the session does not hold is not counted).
const orphanResults = (
  all: ReadonlyArray<TurnStore.StoredTurn>,
  shown: ReadonlyArray<{ readonly id?: string | undefined }>
): Array<string> => {
  const callOf = new Map(ToolUse.pair(all).pairs.map((pair) => [all[pair.result]!.id, all[pair.call]!.id]))
  const seen = new Set<string>()
  const out: Array<string> = []
  for (const turn of shown) {
    const call = turn.id === undefined ? undefined : callOf.get(turn.id)
    if (call !== undefined && !seen.has(call)) out.push(`tool result ${turn.id} is shown without its call ${call}`)
    if (turn.id !== undefined) seen.add(turn.id)
  }
  return out
}

/**
 * Every violated invariant of a context shown to a model (its pinned turns,
 * summaries, then turns): each summary is one of the session's, the turns are
 * the session's, and the turns covered by what is shown (a summary's source
 * turns, or a turn itself) come in conversation order, none twice. A pinned
 * turn (the first request, shown first) may also be covered by what follows,
 * and the newest turns of the last summary may follow it as turns (a leaf
 * shown in part by the expansion: its summary, then its newest turns again).
 * A tool result shown as a turn follows the call it answers, shown as a
 * turn too. With `complete`, every turn of the session is covered (nothing
 * was dropped).
 *
 * @since 0.1.0
 */
export const contextViolations = (
  sessionId: string,
  context: {
    readonly pinned?: ReadonlyArray<{ readonly id?: string | undefined }> | undefined
    readonly summaries: ReadonlyArray<{ readonly id: string }>
    readonly turns: ReadonlyArray<{ readonly id?: string | undefined }>
  },
  expect: { readonly complete?: boolean } = {}
): Effect.Effect<Array<string>, StoreError.StoreError, TurnStore.TurnStore | DagStore.DagStore> =>
  Effect.gen(function*() {
    const turnStore = yield* TurnStore.TurnStore
    const dag = yield* DagStore.DagStore
    const all = yield* turnStore.turns(sessionId)
    const seqOf = new Map(all.map((t) => [t.id, t.seq]))
    const out: Array<string> = []
    const shown: Array<number> = []
    const seqOfTurn = (turn: { readonly id?: string | undefined }) => {
      const seq = turn.id === undefined ? undefined : seqOf.get(turn.id)
      if (seq === undefined) out.push(`turn ${turn.id ?? "(no id)"} is not in session ${sessionId}`)
      return seq
    }
    const pinned = (context.pinned ?? []).flatMap((turn) => {
      const seq = seqOfTurn(turn)
      return seq === undefined ? [] : [seq]
    })
    for (const summary of context.summaries) {
      const source = yield* dag.sourceTurns(summary.id)
      if (source.length === 0) out.push(`summary ${summary.id} covers no turn of the store`)
      shown.push(...source.map((t) => t.seq))
    }
    const first = context.turns.length === 0 ? undefined : seqOfTurn(context.turns[0]!)
    const last = context.summaries.at(-1)
    const lastSource = last === undefined ? [] : (yield* dag.sourceTurns(last.id)).map((t) => t.seq)
    // A leaf in part: its newest turns, shown as turns after it, are counted there.
    if (first !== undefined && lastSource.includes(first)) {
      while (shown.length > 0 && shown[shown.length - 1]! >= first) shown.pop()
    }
    if (first !== undefined) shown.push(first)
    for (const turn of context.turns.slice(1)) {
      const seq = seqOfTurn(turn)
      if (seq !== undefined) shown.push(seq)
    }
    shown.forEach((seq, i) => {
      if (i > 0 && seq <= shown[i - 1]!) out.push(`turn seq ${seq} shown after seq ${shown[i - 1]} (out of order or twice)`)
    })
    out.push(...orphanResults(all, context.turns))
    const covered = new Set([...pinned, ...shown]).size
    if (expect.complete === true && covered !== all.length) {
      out.push(`${covered} of the session's ${all.length} turns are shown`)
    }
    return out
  })
