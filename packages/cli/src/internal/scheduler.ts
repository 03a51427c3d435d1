/**
 * The fiber scheduler of the `precis` process. Effect's default scheduler
 * resumes fibers on microtasks and reaches the event loop only after 2048
 * consecutive drains of one fiber's tasks; but CPU-bound work hands over
 * from fiber to fiber (a timeout, a race, a lease), each starting again from
 * zero, so an offline compaction over a synchronous SQLite store ran to its
 * end on microtasks alone: signals, timers and sockets waited until it was
 * done, and Ctrl-C was read after the run had finished. This one resumes
 * fibers the same way, but once a time slice has passed since the event loop
 * last had a turn, the next drain waits for one (`setImmediate`: no 1 ms timer
 * clamp), whichever fiber it is for.
 *
 * @internal
 */
import * as Scheduler from "effect/Scheduler"

/** The longest run of microtasks, in milliseconds, before the event loop gets a turn. */
const SLICE_MILLIS = 10

/**
 * A scheduler that gives the event loop a turn at least every `sliceMillis`
 * of work resumed on microtasks.
 *
 * @internal
 */
export const make = (sliceMillis: number = SLICE_MILLIS): Scheduler.Scheduler => {
  let lastTurn = performance.now()
  const runnerOf = Scheduler.SchedulerRunner.cached((depth, drain) => {
    if (performance.now() - lastTurn < sliceMillis) return queueMicrotask(() => drain(depth + 1))
    setImmediate(() => {
      lastTurn = performance.now()
      drain(0)
    })
  })
  return Scheduler.make((task, priority, fiber) => runnerOf(fiber).scheduleTask(task, priority))
}
