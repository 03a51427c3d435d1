/**
 * The leaf pass: the uncovered turns but the fresh tail, cut into chunks
 * (`chunking.ts`) and summarized one after the other, each leaf with the
 * newest leaf before it as prior summary.
 *
 * @internal
 */
import { ConversationTurn, Material, Summarizer, TokenEstimator, ToolUse } from "@precis/core"
import { DagStore, type StoreError, TurnStore } from "@precis/store"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as ActiveContext from "../ActiveContext.js"
import * as FreshTail from "../FreshTail.js"
import * as Chunking from "./chunking.js"
import { ProgressEvent } from "../CompactionProgress.js"
import type { ProviderUnavailableError } from "../CompactionError.js"
import * as Step from "./step.js"
import { tailBound } from "./trigger.js"

/**
 * Runs a leaf pass with the fresh tail bounded to `tailTokens` (none when
 * undefined) over at most `maxTurns` turns. Returns the leaves written, the
 * turns they cover, and the uncovered turns it read.
 */
export const leafPass = (
  run: Step.Run,
  tailTokens: number | undefined,
  maxTurns: number | undefined
): Effect.Effect<
  { readonly leaves: number; readonly turns: number; readonly read: ReadonlyArray<TurnStore.StoredTurn> },
  StoreError.StoreError | ProviderUnavailableError,
  TurnStore.TurnStore | DagStore.DagStore | Summarizer.Summarizer
> =>
  Effect.gen(function*() {
    const turnStore = yield* TurnStore.TurnStore
    const dag = yield* DagStore.DagStore
    const summarizer = yield* Summarizer.Summarizer
    const estimator = yield* TokenEstimator.TokenEstimator
    const { options, sessionId } = run
    const read = yield* turnStore.uncoveredTurns(sessionId)
    const ambiguous = FreshTail.ambiguousPairs(read)
    if (ambiguous.length > 0) {
      yield* Effect.logWarning(
        `session ${sessionId}: ${ambiguous.length} tool results answer a call id that several waiting calls share ` +
          `(first: ${JSON.stringify(ambiguous[0]!.id)}); each is paired with the nearest call before it`
      )
    }
    const evictable = Chunking.bounded(
      Chunking.evictable(read, options.freshTailTurns, tailBound(estimator, tailTokens)),
      maxTurns
    )
    // A chunk too small to say anything is measured by what a summarizer reads of it.
    const material = new Map(Material.renderEach(evictable).map((text, i) => [evictable[i]!, estimator.estimate(text)]))
    const chunks = Chunking.chunk(
      evictable,
      (turn) => ActiveContext.turnTokens(estimator, turn),
      options.leafChunkTokens,
      ConversationTurn.isToolResult,
      Chunking.minLeafMaterial(options.leafChunkTokens),
      { pairs: { calls: ToolUse.callIds, answers: ToolUse.answeredIds }, weight: (turn) => material.get(turn) ?? 0 }
    )
    if (chunks.length > 0) {
      yield* run.report(ProgressEvent.LeafPassStarted({ sessionId, chunks: chunks.length, turns: evictable.length }))
    }
    let prior = Option.getOrUndefined(Option.map(yield* dag.latestLeaf(sessionId), (leaf) => leaf.content))
    for (const [index, turns] of chunks.entries()) {
      const summary = yield* Step.step(run, {
        summarize: summarizer.summarizeTurns(turns, { priorSummary: prior, targetTokens: options.leafTargetTokens }),
        targetTokens: options.leafTargetTokens,
        write: (summary) =>
          Effect.as(
            dag.insertLeaf({
              sessionId,
              content: summary.text,
              tier: summary.tier,
              tokenEstimate: summary.outputTokens,
              alsoKeys: summary.alsoKeys,
              turnIds: turns.map((turn) => turn.id)
            }),
            true
          ),
        progress: (tiers) =>
          Effect.succeed(ProgressEvent.LeafWritten({ sessionId, done: index + 1, total: chunks.length, tiers }))
      }).pipe(
        Effect.withSpan("CompactionManager.leaf", {
          attributes: { "precis.session_id": sessionId, "precis.turns": turns.length, "precis.chunk": index }
        })
      )
      prior = summary.text
    }
    return { leaves: chunks.length, turns: evictable.length, read }
  })
