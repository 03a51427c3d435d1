/**
 * Compaction progress on stderr: a bar redrawn in place on a terminal, plain
 * lines otherwise.
 *
 * @internal
 */
import type { CompactionProgress } from "@precis/compaction"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { tierCountsLine } from "./render.js"

/** Where progress goes: whether stderr is a terminal, and how to write to it without a newline. */
export interface Stderr {
  readonly isTTY: boolean
  readonly write: (text: string) => void
}

/** The process's stderr by default; tests replace it. */
export class StderrRef extends Context.Reference<StderrRef>()("@precis/cli/Stderr", {
  defaultValue: (): Stderr => ({
    isTTY: process.stderr.isTTY === true,
    write: (text) => {
      process.stderr.write(text)
    }
  })
}) {}

const BAR_WIDTH = 24

const bar = (done: number, total: number): string => {
  const filled = total === 0 ? BAR_WIDTH : Math.round((done / total) * BAR_WIDTH)
  return `[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}]`
}

/** The text of one progress event. */
export const describe = (event: CompactionProgress.ProgressEvent): string => {
  switch (event._tag) {
    case "LeafPassStarted":
      return `leaf pass: ${event.turns} turns in ${event.chunks} chunks`
    case "LeafWritten":
      return `leaves ${bar(event.done, event.total)} ${event.done}/${event.total} · tiers: ${tierCountsLine(event.tiers)}`
    case "CondenseStarted":
      return `condensing depth ${event.depth}: ${event.groups} groups`
    case "CondensedWritten":
      return `depth ${event.depth + 1} ${bar(event.done, event.total)} ${event.done}/${event.total} · tiers: ${
        tierCountsLine(event.tiers)
      }`
  }
}

/**
 * Whether a plain (non-terminal) log shows `event`: every start, and about
 * every tenth of a pass, so that a long compaction does not flood the log.
 */
export const worthALine = (event: CompactionProgress.ProgressEvent): boolean => {
  if (event._tag === "LeafPassStarted" || event._tag === "CondenseStarted") return true
  const step = Math.max(1, Math.ceil(event.total / 10))
  return event.done === event.total || event.done % step === 0
}

/** A progress reporter: `onProgress` for the compaction, and `finish` to end the bar's line. */
export interface Reporter {
  readonly onProgress: (event: CompactionProgress.ProgressEvent) => Effect.Effect<void>
  readonly finish: Effect.Effect<void>
}

/** Reports nothing. */
export const silent: Reporter = { onProgress: () => Effect.void, finish: Effect.void }

/**
 * A reporter on stderr: on a terminal, one line redrawn in place (ended by
 * `finish`); otherwise one plain line per event.
 */
export const stderr: Effect.Effect<Reporter> = Effect.map(StderrRef, (out): Reporter => {
  if (!out.isTTY) {
    return {
      onProgress: (event) => (worthALine(event) ? Console.error(`precis: ${describe(event)}`) : Effect.void),
      finish: Effect.void
    }
  }
  let drawn = false
  return {
    onProgress: (event) =>
      Effect.sync(() => {
        // \r returns to the start of the line, \x1b[K clears what the previous event left.
        out.write(`\r\x1b[K${describe(event)}`)
        drawn = true
      }),
    finish: Effect.sync(() => {
      if (drawn) out.write("\n")
      drawn = false
    })
  }
})
