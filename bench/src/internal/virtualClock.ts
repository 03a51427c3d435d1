/**
 * A virtual `Clock` for benchmarks of timing (hours of agent time in
 * seconds): `sleep` registers a timer and nothing else moves time; a driver
 * lets the fibers run until they all wait, then jumps to the next timer.
 * Unlike `TestClock`, an interrupted sleep leaves no timer behind, and moving
 * the clock does not wait for fibers to be reported suspended.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"

interface Timer {
  readonly at: number
  readonly wake: () => void
}

/** Runs `effect` on a virtual clock starting at 0, jumping from timer to timer until it ends. */
export const run = <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
  Effect.suspend(() => {
    let now = 0
    let timers: Array<Timer> = []
    const clock: Clock.Clock = {
      [Clock.ClockTypeId]: Clock.ClockTypeId,
      unsafeCurrentTimeMillis: () => now,
      currentTimeMillis: Effect.sync(() => now),
      unsafeCurrentTimeNanos: () => BigInt(now) * 1_000_000n,
      currentTimeNanos: Effect.sync(() => BigInt(now) * 1_000_000n),
      sleep: (duration) =>
        Duration.toMillis(duration) <= 0 ? Effect.void : Effect.async<void>((resume) => {
          const timer: Timer = { at: now + Duration.toMillis(duration), wake: () => resume(Effect.void) }
          timers.push(timer)
          return Effect.sync(() => {
            timers = timers.filter((t) => t !== timer)
          })
        })
    }
    // Lets every runnable fiber run until the set of timers stops changing.
    const settle = Effect.gen(function*() {
      let stable = 0
      let last = -1
      while (stable < 3) {
        for (let i = 0; i < 20; i++) yield* Effect.yieldNow()
        stable = timers.length === last ? stable + 1 : 0
        last = timers.length
      }
    })
    return Effect.gen(function*() {
      const fiber = yield* Effect.fork(Effect.withClock(effect, clock))
      for (;;) {
        yield* settle
        const done = yield* Fiber.poll(fiber)
        if (Option.isSome(done)) return yield* Fiber.join(fiber)
        if (timers.length === 0) continue
        const at = timers.reduce((min, t) => Math.min(min, t.at), Number.POSITIVE_INFINITY)
        now = Math.max(now, at)
        const due = timers.filter((t) => t.at <= now)
        timers = timers.filter((t) => t.at > now)
        for (const timer of due) timer.wake()
      }
    })
  })
