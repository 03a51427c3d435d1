/**
 * What a new Claude Code session in a project starts with (`SessionStart`
 * with `source` `startup` or `clear`): the digest of the project's earlier
 * sessions (`ProjectDigest` of `@precis/context`) for the folder the session
 * starts in (the payload's `cwd`), as `additionalContext`. It only reads what
 * is stored: it imports nothing and never waits on a compaction; it gives up
 * (printing nothing) at the deadline. And the `SessionEnd` side: the session's
 * state is stored before its compaction starts, so the next session's digest
 * folds nothing.
 *
 * @internal
 */
import { ActiveContext } from "@precis/compaction"
import { ProjectDigest } from "@precis/context"
import type { StoreError, TurnStore } from "@precis/store"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as ClaudeCode from "./claudeCode.js"
import { inStore } from "./errors.js"
import { exists } from "./input.js"
import * as Layers from "./layers.js"

/** How long the digest may take when the hook is given no `--deadline`: a session's start must not wait. */
export const defaultDeadline = Duration.seconds(10)

/**
 * The `SessionStart` output for a session starting in `input.cwd`: the
 * project's digest (leaving the starting session out), or nothing when the
 * store holds no earlier session there (or does not exist yet).
 */
export const digestOutput = (
  input: ClaudeCode.HookInput
): Effect.Effect<Option.Option<string>, StoreError.StoreError, TurnStore.TurnStore> =>
  Effect.gen(function*() {
    if (input.cwd === undefined || input.cwd.length === 0) return Option.none()
    const digest = yield* ProjectDigest.make(input.cwd, {
      exclude: input.session_id,
      maxChars: ClaudeCode.maxContextChars
    })
    return digest.text.length === 0 ? Option.none() : Option.some(ClaudeCode.sessionStartOutput(digest.text, ""))
  })

/** `precis hook claude-code` on `SessionStart` (`startup`, `clear`): prints the digest, if any, within `deadline`. */
export const run = (input: ClaudeCode.HookInput, db: Layers.Db, deadline: Option.Option<Duration.Duration>) =>
  Effect.gen(function*() {
    if (!db.isUrl && !(yield* exists(db.path))) return
    const output = yield* digestOutput(input).pipe(
      Effect.timeoutOption(Option.getOrElse(deadline, () => defaultDeadline)),
      Effect.map(Option.flatten),
      Effect.provide(Layers.store(db, { create: false })),
      inStore(db)
    )
    if (Option.isSome(output)) yield* Console.log(output.value)
  })

/** On `SessionEnd`: the session's state carried forward over its last turns and stored. */
export const storeState = (input: ClaudeCode.HookInput) =>
  input.hook_event_name === "SessionEnd" ? Effect.asVoid(ActiveContext.refreshState(input.session_id)) : Effect.void
