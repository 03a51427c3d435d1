/**
 * Standard input read whole, as `precis hook` takes its event: the process's
 * stdin by default, replaced in tests.
 *
 * @internal
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"

/** The text on stdin, up to its end. */
export interface Stdin {
  readonly readAll: Effect.Effect<string>
}

const readProcessStdin: Effect.Effect<string> = Effect.async<string>((resume) => {
  const chunks: Array<Buffer> = []
  const onData = (chunk: Buffer) => void chunks.push(chunk)
  const onEnd = () => resume(Effect.succeed(Buffer.concat(chunks).toString("utf8")))
  process.stdin.on("data", onData)
  process.stdin.once("end", onEnd)
  return Effect.sync(() => {
    process.stdin.off("data", onData)
    process.stdin.off("end", onEnd)
    process.stdin.pause()
  })
})

/** The process's stdin by default; tests replace it. */
export class StdinRef extends Context.Reference<StdinRef>()("@precis/cli/Stdin", {
  defaultValue: (): Stdin => ({ readAll: readProcessStdin })
}) {}
