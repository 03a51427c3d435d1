import { describe, expect, it } from "@effect/vitest"
import { CompactionManager, SleepMode } from "@precis/compaction"
import { Assembler } from "@precis/context"
import { Summarizer } from "@precis/core"
import { ExtractiveProvider } from "@precis/provider-extractive"
import { SqliteStore } from "@precis/store-sqlite"
import { ScriptedLanguageModel as Scripted } from "@precis/testing"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import * as PrecisChat from "../src/PrecisChat.js"
import { AgentToolsLive, call, chatOf, options, task } from "./agent.js"

// The chat over an Assembler with Sleep Mode beside it (idle after 1 minute, checked every 30 seconds).
const Live = PrecisChat.layerFromAssembler({ budget: options.budget }).pipe(
  Layer.provideMerge(SleepMode.layer({ idleThreshold: "1 minute", checkInterval: "30 seconds", budget: options.budget })),
  Layer.provide(Assembler.layer()),
  Layer.provideMerge(CompactionManager.layer(options.compactionDefaults)),
  Layer.provide(Summarizer.layer()),
  Layer.provide(ExtractiveProvider.layer()),
  Layer.provideMerge(SqliteStore.layer({ filename: ":memory:" })),
  Layer.merge(AgentToolsLive)
)

const script = [
  ...Array.from({ length: 8 }, (_, t) => [Scripted.toolCalls([call(0, t, 60), call(1, t, 60)]), Scripted.text(`done ${t}`)]).flat(),
  Scripted.delayed("10 minutes", Scripted.text("a slow answer")),
  Scripted.text("after")
]

describe("PrecisChat with Sleep Mode", () => {
  it.scoped("an exchange is activity: no idle compaction starts while the model answers, one does once idle", () =>
    Effect.gen(function*() {
      const chat = yield* chatOf("z")
      const sleep = yield* SleepMode.SleepMode
      for (let t = 0; t < 8; t++) yield* task(chat, `Task ${t}: fix src/module${t}.ts`)
      const slow = yield* Effect.fork(chat.generateText({ prompt: "Think hard about the design." }))
      yield* TestClock.adjust("9 minutes")
      const during = yield* sleep.stats
      expect(during.cyclesCompleted + during.cyclesInterrupted).toBe(0)
      yield* TestClock.adjust("1 minute")
      expect((yield* Fiber.join(slow)).text).toBe("a slow answer")
      // Idle now: the next check past the idle threshold runs a cycle.
      yield* TestClock.adjust("2 minutes")
      const after = yield* sleep.stats
      expect(after.cyclesCompleted).toBeGreaterThan(0)
    }).pipe(Effect.provide(Layer.merge(Live, Scripted.layer(script)))), 60_000)
})
