/**
 * The `precis` executable: runs {@link Cli.main} on `process.argv` with the
 * Node platform and exits with its code (130 when interrupted by a signal).
 *
 * @since 0.1.0
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Cli from "./Cli.js"
import * as Scheduler from "./internal/scheduler.js"
import { Executable } from "./internal/executable.js"
import { printWarningsAsLines } from "./internal/warnings.js"

printWarningsAsLines()

Cli.main(process.argv).pipe(
  Effect.flatMap((code) =>
    Effect.sync(() => {
      process.exitCode = code
    })
  ),
  Effect.provide(NodeContext.layer),
  // This process is `precis`: a command may start it again (the backlog workers of `watch`).
  Effect.provideService(Executable, Option.some([process.execPath, process.argv[1]!])),
  // CPU-bound work gives the event loop a turn, so Ctrl-C interrupts it (see internal/scheduler.ts).
  Effect.withScheduler(Scheduler.make()),
  NodeRuntime.runMain({
    disableErrorReporting: true,
    // Logs go to stderr through the CLI's own logger; the pretty one would write to stdout.
    disablePrettyLogger: true,
    // A success leaves `process.exitCode` to the command; a signal gives 130.
    teardown: (exit, onExit) =>
      onExit(Exit.isSuccess(exit) ? 0 : Cause.isInterruptedOnly(exit.cause) ? 130 : 1)
  })
)
