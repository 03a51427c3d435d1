/**
 * Change notifications for `precis watch`: one `fs.watch` per directory the
 * scan listed (never recursive: Node's recursive watching walks the tree on
 * its own, links and their loops included). A notification says that a
 * directory changed (a file in it was written, created, renamed or removed);
 * the follower then looks at that directory's files at once. Where the
 * platform or the file system gives none (a watch that fails, a network
 * mount), polling, with backoff on idle files, still finds every change.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as fs from "node:fs"

/** The directories watched, and those changed since the last look. */
export interface Changes {
  /** Watches exactly `directories` (starting and closing watchers as the set changes). */
  readonly watch: (directories: ReadonlyArray<string>) => Effect.Effect<void>
  /** The directories changed since the last call (cleared). */
  readonly take: Effect.Effect<ReadonlySet<string>>
  /** Whether every directory watched has a working watcher. */
  readonly complete: Effect.Effect<boolean>
}

/** Change notifications, their watchers closed with the scope. */
export const make: Effect.Effect<Changes, never, Scope.Scope> = Effect.gen(function*() {
  const watchers = new Map<string, fs.FSWatcher | undefined>()
  let changed = new Set<string>()
  const close = (dir: string) => {
    watchers.get(dir)?.close()
    watchers.delete(dir)
  }
  yield* Effect.addFinalizer(() => Effect.sync(() => [...watchers.keys()].forEach(close)))

  const start = (dir: string) => {
    try {
      const watcher = fs.watch(dir, { persistent: false }, () => changed.add(dir))
      // A watcher that fails (its directory removed, no more inotify watches) leaves the directory to polling.
      watcher.on("error", () => {
        watcher.close()
        watchers.set(dir, undefined)
        changed.add(dir)
      })
      watchers.set(dir, watcher)
    } catch {
      watchers.set(dir, undefined)
    }
  }

  const watch: Changes["watch"] = (directories) =>
    Effect.sync(() => {
      const wanted = new Set(directories)
      for (const dir of [...watchers.keys()]) if (!wanted.has(dir)) close(dir)
      for (const dir of wanted) if (!watchers.has(dir)) start(dir)
    })

  const take = Effect.sync(() => {
    const taken = changed
    changed = new Set()
    return taken
  })

  const complete = Effect.sync(() => [...watchers.values()].every((watcher) => watcher !== undefined))
  return { watch, take, complete }
})
