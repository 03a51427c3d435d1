/**
 * The real transcripts the bench reads: the example session committed in the
 * repository and, when the shared fixtures folder is present next to the
 * repository (`../shared/fixtures/transcripts`), each fixture transcript.
 *
 * @since 0.1.0
 */
import type { ConversationTurn } from "@precis/core"
import { Importer } from "@precis/importers"
import * as Either from "effect/Either"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

/**
 * The repository root (two levels above this module).
 *
 * @since 0.1.0
 */
export const repoRoot: string = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")

/**
 * The shared fixture transcripts folder, whether or not it exists:
 * `PRECIS_FIXTURES_DIR` when set (a git worktree elsewhere than next to
 * `shared/`), else `../shared/fixtures/transcripts` next to the repository.
 *
 * @since 0.1.0
 */
export const fixturesDir: string = process.env.PRECIS_FIXTURES_DIR !== undefined && process.env.PRECIS_FIXTURES_DIR !== ""
  ? path.resolve(process.env.PRECIS_FIXTURES_DIR)
  : path.resolve(repoRoot, "..", "shared", "fixtures", "transcripts")

/**
 * The example session of the repository.
 *
 * @since 0.1.0
 */
export const exampleSession: string = path.resolve(repoRoot, "examples", "coding-session.jsonl")

/**
 * A transcript file and its parsed turns.
 *
 * @since 0.1.0
 */
export interface Input {
  readonly name: string
  readonly file: string
  readonly bytes: number
  readonly turns: ReadonlyArray<ConversationTurn.ConversationTurn>
}

/**
 * Whether a fixture file name is a session transcript to measure: a JSON,
 * JSONL or trajectory file, but not a `*.compact-reference.jsonl` (Claude
 * Code's own compaction request of a session: the fidelity section reads it
 * beside its session; it is no session of its own).
 *
 * @since 0.1.0
 */
export const isSession = (name: string): boolean =>
  /\.(jsonl?|traj)$/.test(name) && !name.endsWith(".compact-reference.jsonl")

/**
 * The transcript files to measure: the example session (when present) then the
 * fixture sessions (when the folder is present, see {@link isSession}),
 * skipping licence and notes files and the compaction references.
 *
 * @since 0.1.0
 */
export const files = (): ReadonlyArray<string> => {
  const out: Array<string> = []
  if (fs.existsSync(exampleSession)) out.push(exampleSession)
  if (fs.existsSync(fixturesDir)) {
    for (const entry of fs.readdirSync(fixturesDir).sort()) {
      const file = path.join(fixturesDir, entry)
      if (fs.statSync(file).isFile() && isSession(entry)) out.push(file)
    }
  }
  return out
}

/**
 * Parses one transcript file (format detected) into turns; throws on a bad file.
 *
 * @since 0.1.0
 */
export const load = (file: string): Input => {
  const text = fs.readFileSync(file, "utf8")
  const parsed = Importer.parse(text, "auto", file)
  if (Either.isLeft(parsed)) throw new Error(parsed.left.message)
  return { name: path.basename(file), file, bytes: Buffer.byteLength(text), turns: Importer.allTurns(parsed.right) }
}

/**
 * Every available transcript, parsed.
 *
 * @since 0.1.0
 */
export const all = (): ReadonlyArray<Input> => files().map(load)
