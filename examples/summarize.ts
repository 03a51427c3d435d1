/**
 * Summarizes one short conversation three times through a scripted provider,
 * so that each call ends in a different tier, then prints the summaries and
 * the tier counts. Run with `pnpm example`.
 */
import { Summarizer } from "@precis/core"
import { Fixtures, ScriptedProvider } from "@precis/testing"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const conversation = [
  Fixtures.turn("user", "The login test fails with TypeError: cannot read 'id' of undefined.", { timestamp: "2025-06-01T09:00:00Z" }),
  Fixtures.turn("assistant", "Running `npm test -- auth` to reproduce.", { timestamp: "2025-06-01T09:00:20Z" }),
  Fixtures.turn("tool", "FAIL src/auth/login.test.ts\n  TypeError: Cannot read properties of undefined (reading 'id')\n    at src/auth/session.ts:42", { timestamp: "2025-06-01T09:00:31Z" }),
  Fixtures.turn("assistant", "session.ts:42 reads user.id before the lookup resolves. Adding an await in createSession.", { timestamp: "2025-06-01T09:01:05Z" }),
  Fixtures.turn("tool", "PASS src/auth/login.test.ts (12 tests)", { timestamp: "2025-06-01T09:02:10Z" }),
  Fixtures.turn("user", "Great. Also bump the session TTL to 30 minutes.", { timestamp: "2025-06-01T09:03:00Z" })
]

const script = [
  // call 1, normal tier: a short reply is kept
  ScriptedProvider.reply("Fixed login TypeError (missing await in createSession, src/auth/session.ts:42); tests pass. Next: session TTL 30 min."),
  // call 2: the normal reply is longer than the input, so the aggressive tier runs
  ScriptedProvider.reply("A very long restatement of everything. ".repeat(40)),
  ScriptedProvider.reply("Login fix done (await in createSession); TODO TTL=30m."),
  // call 3: both model calls fail, so the deterministic fallback truncates
  ScriptedProvider.fail(ScriptedProvider.transportError("connection refused")),
  ScriptedProvider.reply("   ")
]

const program = Effect.gen(function*() {
  const summarizer = yield* Summarizer.Summarizer
  for (const call of [1, 2, 3]) {
    const summary = yield* summarizer.summarizeTurns(conversation, { targetTokens: 24 })
    yield* Console.log(`call ${call}: tier=${summary.tier} tokens ${summary.inputTokens} -> ${summary.outputTokens}`)
    yield* Console.log(`  ${summary.text.replaceAll("\n", "\n  ")}`)
  }
  yield* Console.log(`tier counts: ${JSON.stringify(yield* summarizer.tierCounts)}`)
})

program.pipe(
  Effect.provide(Summarizer.layer().pipe(Layer.provide(ScriptedProvider.layer(script)))),
  Effect.runPromise
)
