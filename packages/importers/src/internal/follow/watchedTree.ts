/**
 * The transcript files under the paths `precis watch` follows. A directory is
 * listed once, however it is reached (by its device and inode: links that
 * loop, `a -> ..`, end there, and a link out of the tree is followed once);
 * a file reached by several paths (links, hard links, two roots) is followed
 * under the first, in sorted order; only regular files are kept (a FIFO, a
 * socket or a device named `*.jsonl` never is), and in a directory only
 * those named `*.jsonl` or that a format of the registry follows (its
 * `watch`: Gemini CLI's `chats/session-*.json`, opencode's session files),
 * the folders a format leaves unlisted skipped (opencode's message and part
 * folders, read through their session).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import type { Format } from "../format.js"
import { registry } from "../formats.js"
import type * as TranscriptFile from "./transcriptFile.js"

const formats: ReadonlyArray<Format> = registry

/** Whether a file found in a folder is followed: `*.jsonl`, or one a format follows. */
const follows = (file: string): boolean =>
  file.endsWith(".jsonl") || formats.some((format) => format.watch?.follows(file) === true)

/** The folders besides its own whose changes change `file`, as its format says. */
const foldersOf = (file: string): ReadonlyArray<string> => formats.flatMap((format) => format.watch?.folders?.(file) ?? [])

/** Whether a folder is left unlisted, given the names beside it. */
const skips = (dir: string, siblings: ReadonlyArray<string>): boolean =>
  formats.some((format) => format.watch?.skips?.(dir, siblings) === true)

/** A followed file: its path, its identity when found, and the folders whose changes change it. */
export interface Found {
  readonly path: string
  readonly identity: TranscriptFile.Identity
  readonly folders: ReadonlyArray<string>
}

/** What a scan found: the files, and the directories to watch for changes (those listed, a root file's own). */
export interface Tree {
  readonly files: ReadonlyArray<Found>
  readonly directories: ReadonlyArray<string>
}

/** How deep a scan goes below a root: deeper trees are not transcripts' (and would be a trap). */
const MAX_DEPTH = 32

const statOf = (file: string) => Effect.promise(() => fsp.stat(file).catch(() => undefined))

const key = (stats: fs.Stats) => `${stats.dev}:${stats.ino}`

/** The files and directories under `roots` (a root that is a file is followed whatever its name). */
export const scan = (roots: ReadonlyArray<string>): Effect.Effect<Tree> =>
  Effect.gen(function*() {
    const seen = new Set<string>()
    const files: Array<Found> = []
    const directories: Array<string> = []
    const keep = (file: string, stats: fs.Stats) =>
      Effect.gen(function*() {
        if (!stats.isFile() || seen.has(key(stats))) return
        seen.add(key(stats))
        // Its format's other folders that exist (a session's folder of messages, once it has one).
        const others = yield* Effect.filter(foldersOf(file), (dir) => Effect.map(statOf(dir), (s) => s?.isDirectory() === true))
        files.push({ path: file, identity: { dev: stats.dev, ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs }, folders: [path.dirname(file), ...others] })
        for (const dir of others) if (!directories.includes(dir)) directories.push(dir)
      })
    const walk = (dir: string, stats: fs.Stats, depth: number): Effect.Effect<void> =>
      Effect.gen(function*() {
        if (seen.has(key(stats)) || depth > MAX_DEPTH) return
        seen.add(key(stats))
        directories.push(dir)
        const entries = yield* Effect.promise(() => fsp.readdir(dir, { withFileTypes: true }).catch(() => []))
        const names = entries.map((entry) => entry.name)
        for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
          const child = path.join(dir, entry.name)
          // A link is looked at through (what it names decides); other kinds by the entry alone.
          if (!entry.isDirectory() && !entry.isSymbolicLink() && !(entry.isFile() && follows(child))) continue
          const target = yield* statOf(child)
          if (target === undefined) continue
          if (target.isDirectory()) {
            if (!skips(child, names)) yield* walk(child, target, depth + 1)
          } else if (follows(child)) yield* keep(child, target)
        }
      })
    for (const root of roots) {
      const stats = yield* statOf(root)
      if (stats === undefined) continue
      if (stats.isDirectory()) {
        yield* walk(root, stats, 0)
      } else {
        yield* keep(root, stats)
        if (!directories.includes(path.dirname(root))) directories.push(path.dirname(root))
      }
    }
    return { files, directories }
  })
