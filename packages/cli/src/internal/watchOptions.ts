/**
 * The options of `watch`: the paths it follows, polling, Sleep Mode's and
 * the worker processes of its first run (`backlogWorkers.ts`).
 *
 * @internal
 */
import * as Args from "@effect/cli/Args"
import { SleepMode } from "@precis/compaction"
import { OptionConfig, OptionSchema } from "@precis/core"
import * as Duration from "effect/Duration"
import * as os from "node:os"
import { positional } from "./argv.js"
import { flag, session } from "./options.js"

/** The paths `watch` follows (none: every agent's folder of sessions that exists). */
export const paths = Args.text({ name: "PATH" }).pipe(
  Args.withDescription(
    "a transcript file (JSONL) or a directory of them (its .jsonl files at any depth); none: every agent's " +
      "folder of sessions that exists (~/.claude/projects, ~/.codex/sessions, ~/.gemini/tmp, " +
      "~/.local/share/opencode/storage)"
  ),
  positional,
  Args.repeated
)

/** `--session ID` of `watch`. */
export const sessionOption = session("the session id (default: each file's base name without .jsonl; only with a single FILE)")

/** How often `watch` looks at the files, when `--poll-interval` is not given. */
export const defaultPollInterval = Duration.seconds(1)

const sleepOption = <K extends "idleThreshold" | "checkInterval" | "minUnprocessedTurns" | "batchSize">(
  name: string,
  option: K,
  description: string
) =>
  flag(
    name,
    option === "idleThreshold" || option === "checkInterval" ? "DURATION" : "N",
    OptionSchema.fieldOf(SleepMode.Options, option),
    `${description} (default: ${OptionConfig.variable("PRECIS_SLEEP_", option)}, else ${
      typeof SleepMode.defaults[option] === "number" ? SleepMode.defaults[option] : Duration.format(SleepMode.defaults[option])
    })`
  )

/** The options of `watch`: polling, Sleep Mode's and the worker processes. */
export const options = {
  pollInterval: flag(
    "poll-interval",
    "DURATION",
    OptionSchema.duration({ positive: true }),
    `how often the files are checked for new lines (default ${Duration.format(defaultPollInterval)})`
  ),
  idleThreshold: sleepOption("idle-threshold", "idleThreshold", "how long without new lines before compacting in idle time"),
  checkInterval: sleepOption("check-interval", "checkInterval", "how often Sleep Mode checks whether it is idle"),
  minUnprocessedTurns: sleepOption(
    "min-unprocessed-turns",
    "minUnprocessedTurns",
    "fewest turns outside the fresh tail that make a session worth compacting"
  ),
  batchSize: sleepOption(
    "batch-size",
    "batchSize",
    "most turns summarized per batch: an idle cycle compacts a session batch after batch until it is done"
  ),
  parallelSessions: flag(
    "parallel-sessions",
    "N",
    OptionSchema.fieldOf(SleepMode.Options, "parallelSessions"),
    `sessions an idle cycle compacts at once (default: ${
      OptionConfig.variable("PRECIS_SLEEP_", "parallelSessions")
    }, else the number of cores)`
  ),
  workers: flag(
    "workers",
    "N",
    OptionSchema.int({ min: 0 }),
    "worker processes (precis compact --all over the same store) that compact the backlog found on start " +
      "alongside this process, at once rather than in idle time; each session is compacted by one at a time, " +
      "and each worker ends when no session has work left; 0: none, Sleep Mode alone " +
      "(default: the number of cores less one)"
  )
}

/** The worker processes `watch` starts without `--workers`: one per core beyond its own. */
export const defaultWorkers = (): number => Math.max(0, os.availableParallelism() - 1)
