/**
 * The registry of transcript formats: one record per format, in the order the
 * help and the docs list them (and detection asks them, sure evidence first).
 * The `--format` choices, detection, the formats read line by line and the
 * list in the docs all come from here: a new format is a module with its
 * `format` record, and a line here.
 *
 * @internal
 */
import * as Aider from "./aider.js"
import * as ClaudeCode from "./claudeCode.js"
import * as Cline from "./cline.js"
import * as Codex from "./codex.js"
import * as Gemini from "./gemini.js"
import * as GeminiStream from "./geminiStream.js"
import * as Oasst from "./oasst.js"
import * as OpenAi from "./openai.js"
import * as Opencode from "./opencode.js"
import * as OpencodeStorage from "./opencodeStorage.js"
import * as OpenHands from "./openhands.js"
import * as Pi from "./pi.js"
import * as Precis from "./precis.js"
import * as SweAgent from "./sweAgent.js"

/** Every format, in order. */
export const registry = [
  Precis.format,
  OpenAi.format,
  ClaudeCode.format,
  SweAgent.format,
  OpenHands.format,
  Oasst.format,
  Codex.format,
  Gemini.format,
  GeminiStream.format,
  Opencode.format,
  OpencodeStorage.format,
  Pi.format,
  Cline.format,
  Aider.format
] as const

/** The name of a format of the registry. */
export type Name = typeof registry[number]["name"]

/** The format named `name`. */
export const byName = (name: Name) => registry.find((format) => format.name === name)!

/** Whether a file in `name` is read leniently: another program's JSONL log (its `lenient`), unless `strict`. */
export const isLenient = (name: Name, strict: boolean | undefined): boolean => {
  const format = byName(name)
  return strict !== true && format.lineBased && format.lenient
}
