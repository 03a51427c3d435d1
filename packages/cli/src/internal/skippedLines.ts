/**
 * The lines a lenient import (or `watch`, or the hook) skipped: shown on stderr as `FILE:LINE: skipped:
 * reason` (and a turn stored with a NUL made visible as `FILE:LINE: ...`), and
 * kept with their text in a side file next to the store, `<db>.skipped.jsonl`
 * (for a PostgreSQL store, `precis-skipped.jsonl` in the working directory),
 * one JSON object per line: `{ file, line, reason, text, skippedAt }`.
 *
 * Why a side file rather than a table: what it holds is not turns but the
 * bytes precis could not read; a user finds it beside the store, reads and
 * mends it with any editor and imports the mended file again, and a later
 * precis can read it; no store query or migration changes. It is written
 * with mode 0600, as the transcript it comes from may hold secrets, and an
 * entry already there (same file, line and text) is not written again.
 *
 * @internal
 */
import { Importer, SkipReport } from "@precis/importers"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { CliError } from "./errors.js"
import type { Db } from "./layers.js"

/** The side file the skipped lines of imports into `db` are kept in. */
export const sideFile = (db: Db): string => db.isUrl ? path.resolve("precis-skipped.jsonl") : `${db.path}.skipped.jsonl`

/** Prints what reading `imported` skipped and mended, one line each, on stderr. */
export const report = (imported: Importer.Imported) =>
  Effect.gen(function*() {
    for (const skipped of imported.skipped) yield* Console.error(SkipReport.skippedLine(imported.file, skipped))
    for (const mended of imported.mended) yield* Console.error(SkipReport.mendedLine(imported.file, mended))
  })

const keyOf = (file: string, line: number, text: string) => `${file}\u0000${line}\u0000${text}`

// The keys of the entries already in the side file (a line that is no entry is left alone).
const keptKeys = (file: string): Set<string> => {
  const keys = new Set<string>()
  if (!fs.existsSync(file)) return keys
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    try {
      const entry: unknown = JSON.parse(line)
      if (typeof entry === "object" && entry !== null && "file" in entry && "line" in entry && "text" in entry) {
        keys.add(keyOf(String(entry.file), Number(entry.line), String(entry.text)))
      }
    } catch {
      // Not an entry (a blank line, or one the user edited): kept as it is.
    }
  }
  return keys
}

/**
 * Appends the lines `imported` skipped to the side file of `db` (those not
 * there yet); the number of lines skipped. Nothing is written when none was.
 */
export const keep = (imported: Importer.Imported, db: Db) => keepLines(imported.file, imported.skipped, db)

/**
 * Appends `skipped`, lines of `file` (those not there yet), to the side file
 * of `db`; how many were given. Nothing is written when none was (`watch`
 * and the hook keep each line the follower skips so).
 */
export const keepLines = (file: string, skipped: ReadonlyArray<SkipReport.Skipped>, db: Db) =>
  Effect.try({
    try: () => {
      if (skipped.length === 0) return 0
      const target = sideFile(db)
      const source = path.resolve(file)
      const kept = keptKeys(target)
      const skippedAt = new Date().toISOString()
      const fresh = skipped.filter((s) => !kept.has(keyOf(source, s.line, s.text)))
      const text = fresh.map((s) => JSON.stringify({ file: source, line: s.line, reason: s.reason, text: s.text, skippedAt }) + "\n").join("")
      if (text.length > 0) fs.appendFileSync(target, text, { mode: 0o600 })
      return skipped.length
    },
    catch: (error) =>
      new CliError({ reason: `${sideFile(db)}: cannot keep the skipped lines: ${error instanceof Error ? error.message : String(error)}` })
  })
