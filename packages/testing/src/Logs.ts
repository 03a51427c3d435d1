/**
 * What a program logs, captured: to check that a wait is announced, once,
 * in the words a user reads.
 *
 * @since 0.1.0
 */
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"

/**
 * A logger layer recording the first message part of every log at `level` or
 * above (Warning by default) in `messages`, in order, and nothing else.
 *
 * @example
 * ```ts
 * import { Logs } from "@precis/testing"
 * import { Effect } from "effect"
 * const { layer, messages } = Logs.capture()
 * Effect.runSync(Effect.provide(Effect.logWarning("waiting"), layer))
 * messages // ["waiting"]
 * ```
 * @since 0.1.0
 */
export const capture = (level: LogLevel.LogLevel = LogLevel.Warning) => {
  const messages: Array<string> = []
  const layer: Layer.Layer<never> = Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ logLevel, message }) => {
      if (LogLevel.greaterThanEqual(logLevel, level)) messages.push(String(Array.isArray(message) ? message[0] : message))
    })
  )
  return { layer, messages }
}
