import { assert } from "@effect/vitest"
import type { ConversationTurn } from "@precis/core"
import * as Either from "effect/Either"
import * as Importer from "../src/Importer.js"

/** JSONL: one JSON value per line. */
export const jsonl = (...values: ReadonlyArray<unknown>) => values.map((v) => JSON.stringify(v)).join("\n") + "\n"

/** What `text` holds, read as `format`; fails the test on an `ImportError`. */
export const parsed = (text: string, format: Importer.Format, file = "sample"): Importer.Imported => {
  const result = Importer.parse(text, format, file)
  if (Either.isLeft(result)) return assert.fail(result.left.message)
  return result.right
}

/** Every turn of `text`, read as `format`. */
export const ok = (
  text: string,
  format: Importer.Format,
  file = "sample"
): ReadonlyArray<ConversationTurn.ConversationTurn> => Importer.allTurns(parsed(text, format, file))

/**
 * The `ImportError` reading `text` as `format` fails with, strictly (as `--strict`: another
 * program's log is otherwise read leniently); fails the test when it succeeds.
 */
export const err = (text: string, format: Importer.Format, file = "sample"): Importer.ImportError => {
  const result = Importer.parse(text, format, file, { strict: true })
  if (Either.isRight(result)) return assert.fail(`expected an ImportError, got ${Importer.allTurns(result.right).length} turns`)
  return result.left
}
