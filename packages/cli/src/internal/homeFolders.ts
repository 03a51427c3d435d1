/**
 * The user's folders as the environment names them: a variable when set
 * (and not empty), `HOME`, and the XDG base directories with their
 * fallbacks under `HOME`.
 *
 * @internal
 */
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as path from "node:path"

/** The variable `name` when set and not empty; none otherwise. */
export const variable = (name: string): Effect.Effect<Option.Option<string>> =>
  Config.option(Config.nonEmptyString(name)).pipe(Effect.orElseSucceed(() => Option.none<string>()))

/** `$name`, else `$HOME/fallback…`; none when neither is set. */
export const under = (name: string, ...fallback: ReadonlyArray<string>): Effect.Effect<Option.Option<string>> =>
  Effect.gen(function*() {
    const set = yield* variable(name)
    if (Option.isSome(set)) return set
    return Option.map(yield* variable("HOME"), (home) => path.join(home, ...fallback))
  })
