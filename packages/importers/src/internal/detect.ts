/**
 * Format detection by content: what the first characters are (a JSON array's
 * first element, a JSONL line or a JSON object, or, when those do not parse in
 * the sample, its text), asked of each format of the registry; the file name
 * only breaks ties.
 *
 * @internal
 */
import { isRecord } from "./common.js"
import type { Format, Probe } from "./format.js"
import { type Name, registry } from "./formats.js"

const formats: ReadonlyArray<Format<Name>> = registry

/** The text of the first complete `{...}` at or after `from`, if the sample holds it whole. */
const firstObject = (sample: string, from: number): string | undefined => {
  const start = sample.indexOf("{", from)
  if (start === -1) return undefined
  let depth = 0
  for (let i = start; i < sample.length; i++) {
    const c = sample[i]
    if (c === "\"") {
      for (i++; i < sample.length && sample[i] !== "\""; i++) if (sample[i] === "\\") i++
    } else if (c === "{" || c === "[") depth++
    else if (c === "}" || c === "]") {
      depth--
      if (depth === 0) return sample.slice(start, i + 1)
    }
  }
  return undefined
}

const tryParse = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

// How much of an array's text its formats look at for keys of their own.
const HEAD = 4096

// What detection looks at: a JSON array's first element (else its head), a JSONL line or
// object (else the text of a sample whose first line does not parse), else the text itself.
const probeOf = (sample: string, fileName: string): Probe | undefined => {
  const text = sample.charCodeAt(0) === 0xfeff ? sample.slice(1) : sample
  const start = text.search(/\S/)
  if (start === -1) return undefined
  if (text[start] === "[") {
    const whole = tryParse(text)
    const first = Array.isArray(whole) ? whole[0] : tryParse(firstObject(text, start) ?? "")
    const head = text.slice(start, start + HEAD)
    return isRecord(first) ? { _tag: "Element", value: first, head } : { _tag: "ArrayHead", head }
  }
  if (text[start] !== "{") return { _tag: "Text", text: text.slice(start), fileName }
  const end = text.indexOf("\n", start)
  const firstLine = text.slice(start, end === -1 ? text.length : end)
  const parsed = tryParse(firstLine)
  return isRecord(parsed)
    ? { _tag: "Object", value: parsed }
    : { _tag: "ObjectText", text: text.slice(start), firstLine, fileName }
}

/**
 * The format of a file from its first characters (`sample`, say the first 64
 * KiB) and its name: the first format of the registry that claims the sample,
 * else the first that suggests it; `undefined` when none does.
 */
export const detect = (sample: string, fileName = ""): Name | undefined => {
  const probe = probeOf(sample, fileName)
  if (probe === undefined) return undefined
  return (formats.find((format) => format.detect.claims(probe)) ??
    formats.find((format) => format.detect.suggests?.(probe) === true))?.name
}
