/**
 * Another program's JSON settings file edited as a document, not re-written
 * from a parse of it: each change is one edit of the text (`jsonc-parser`'s
 * `modify`, unformatted, then laid out here in the file's own indentation),
 * so what precis does not touch stays byte for byte — comments, key order,
 * duplicate keys, numbers JavaScript cannot hold (`12345678901234567890`,
 * `1e400`, `1.0`) and the user's layout. Taking out what an edit put in gives
 * the text back as it was.
 *
 * @internal
 */
import * as Either from "effect/Either"
import * as Jsonc from "jsonc-parser"

/** A JSON object as parsed (read only; every change goes through {@link set}). */
export type Json = { readonly [key: string]: unknown }

/** A settings document: its text, and the object it holds (for reading it). */
export interface Document {
  readonly text: string
  readonly value: Json
}

/** A path into a document: keys, list indexes, and `-1` for "appended to the list". */
export type Path = ReadonlyArray<string | number>

/** Whether `value` is a JSON object (not a list, not null). */
export const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * The document `text` holds (JSON with comments and trailing commas, as
 * Claude Code, Gemini CLI and opencode accept); a reason when it is not a
 * JSON object. An empty text is an empty object.
 */
export const parse = (text: string): Either.Either<Document, string> => {
  if (text.trim().length === 0) return Either.right({ text, value: {} })
  const errors: Array<Jsonc.ParseError> = []
  const value: unknown = Jsonc.parse(text, errors, { allowTrailingComma: true, disallowComments: false })
  const first = errors[0]
  if (first !== undefined) {
    const line = text.slice(0, first.offset).split("\n").length
    return Either.left(`not valid JSON (line ${line}: ${Jsonc.printParseErrorCode(first.error)})`)
  }
  return isObject(value) ? Either.right({ text, value }) : Either.left("not a JSON object")
}

// The file's indentation unit (its first indented key's), else two spaces; and its line ending.
const layoutOf = (text: string) => ({
  unit: /^([ \t]+)"/m.exec(text)?.[1] ?? "  ",
  eol: text.includes("\r\n") ? "\r\n" : "\n"
})

/** `value` as indented JSON whose lines after the first start at `depth` units. */
const pretty = (value: unknown, depth: number, layout: { readonly unit: string; readonly eol: string }): string =>
  JSON.stringify(value, null, layout.unit).split("\n").join(layout.eol + layout.unit.repeat(depth))

/** The value at `path` in `value`; undefined when there is none. */
const at = (value: unknown, path: Path): unknown =>
  path.reduce<unknown>((node, step) =>
    Array.isArray(node) ? node[step as number] : isObject(node) ? node[String(step)] : undefined, value)

/** `value` with `next` at `path` (`undefined`: taken out; `-1`: appended), the folders on the way created. */
const updated = (value: unknown, path: Path, next: unknown): unknown => {
  const [step, ...rest] = path
  if (step === undefined) return next
  if (typeof step === "number") {
    const list = Array.isArray(value) ? [...value] : []
    const index = step === -1 ? list.length : step
    if (rest.length === 0 && next === undefined) list.splice(index, 1)
    else list[index] = updated(list[index], rest, next)
    return list
  }
  const object: Record<string, unknown> = isObject(value) ? { ...value } : {}
  if (rest.length === 0 && next === undefined) delete object[step]
  else object[step] = updated(object[step], rest, next)
  return object
}

/** The longest prefix of `path` whose parent is in the document, and the value to put there. */
const anchor = (doc: Document, path: Path, value: unknown): { readonly path: Path; readonly value: unknown } => {
  let depth = path.length - 1
  while (depth > 0 && at(doc.value, path.slice(0, depth)) === undefined) depth--
  let wrapped = value
  for (let i = path.length - 1; i > depth; i--) {
    const step = path[i]!
    wrapped = typeof step === "number" ? [wrapped] : { [step]: wrapped }
  }
  return { path: path.slice(0, depth + 1), value: wrapped }
}

/**
 * Where the container at `path` opens in `text`: one scan that descends
 * only along `path` (a settings file of megabytes is not built as a tree).
 */
const openingOf = (text: string, path: Path): number | undefined => {
  let found: number | undefined
  const visit = (offset: number, pathOf: () => Jsonc.JSONPath) => {
    if (found !== undefined) return false
    const here = pathOf()
    const onPath = here.length <= path.length && here.every((step, i) => step === path[i])
    if (onPath && here.length === path.length) found = offset
    return onPath && found === undefined
  }
  Jsonc.visit(text, {
    onObjectBegin: (offset, _length, _line, _column, pathOf) => visit(offset, pathOf),
    onArrayBegin: (offset, _length, _line, _column, pathOf) => visit(offset, pathOf)
  }, { allowTrailingComma: true })
  return found
}

/** `text` with the container at `path` written `{}` / `[]`, when it is empty and only blanks are left in it. */
const collapsed = (text: string, value: unknown, path: Path): string => {
  const container = at(value, path)
  const empty = Array.isArray(container) ? container.length === 0 : isObject(container) && Object.keys(container).length === 0
  const opening = empty ? openingOf(text, path) : undefined
  if (opening === undefined) return text
  const blank = /^\s*[}\]]/.exec(text.slice(opening + 1))
  if (blank === null) return text
  return `${text.slice(0, opening)}${text[opening] === "{" ? "{}" : "[]"}${text.slice(opening + 1 + blank[0].length)}`
}

/**
 * The edits taking the value at `path` out. jsonc-parser 3.3.1 cuts the last
 * item of a list of two or more one character short (`[1, 2]` gives `[12]`):
 * that item is cut here from the end of the one before it to its own end.
 */
const removal = (text: string, path: Path): Array<Jsonc.Edit> => {
  const last = path[path.length - 1]
  if (typeof last === "number" && last > 0) {
    const root = Jsonc.parseTree(text, [], { allowTrailingComma: true })
    const list = root === undefined ? undefined : Jsonc.findNodeAtLocation(root, path.slice(0, -1) as Jsonc.JSONPath)
    const items = list?.type === "array" ? list.children ?? [] : []
    if (items.length === last + 1) {
      const end = items[last - 1]!.offset + items[last - 1]!.length
      return [{ offset: end, length: items[last]!.offset + items[last]!.length - end, content: "" }]
    }
  }
  return Jsonc.modify(text, path as Jsonc.JSONPath, undefined, {})
}

/**
 * The document with `value` at `path` (`undefined`: that key or list item
 * taken out, and its container written `{}` or `[]` when left empty), the
 * folders on the way created; one edit of the text, the new part laid out
 * in the file's indentation (compact in a container written on one line).
 */
export const set = (doc: Document, path: Path, value: unknown): Document => {
  const text = doc.text.trim().length === 0 ? "{}\n" : doc.text
  const after = updated(doc.value, path, value) as Json
  if (value === undefined) {
    const removed = Jsonc.applyEdits(text, removal(text, path))
    return { text: collapsed(removed, after, path.slice(0, -1)), value: after }
  }
  const target = anchor(doc, path, value)
  const last = target.path[target.path.length - 1]
  const edits = Jsonc.modify(text, target.path as Jsonc.JSONPath, target.value, { isArrayInsertion: last === -1 })
  const layout = layoutOf(text)
  const parent = target.path.slice(0, -1)
  const siblings = at(doc.value, parent)
  const opening = (Array.isArray(siblings) ? siblings.length : Object.keys(siblings ?? {}).length) > 0
    ? openingOf(text, parent)
    : undefined
  const laidOut = edits.map((edit) => {
    // In a container written on one line (its opening and the edit on one line), the new part stays compact.
    if (opening !== undefined && !text.slice(opening, edit.offset).includes("\n")) return edit
    const json = JSON.stringify(target.value)
    if (!edit.content.endsWith(json)) return edit
    const head = edit.content.slice(0, edit.content.length - json.length)
    const depth = target.path.length
    const body = pretty(target.value, depth, layout)
    // A replaced value keeps its place; a new key or item goes on a line of its own.
    if (edit.length > 0 && head === "") return { ...edit, content: body }
    const comma = head.startsWith(",") ? "," : ""
    const opened = comma === "" && /^\s*[}\]]/.test(text.slice(edit.offset))
    const closing = opened ? layout.eol + layout.unit.repeat(depth - 1) : ""
    return {
      ...edit,
      content: `${comma}${layout.eol}${layout.unit.repeat(depth)}${head.slice(comma.length)}${body}${closing}`
    }
  })
  return { text: Jsonc.applyEdits(text, laidOut), value: after }
}

/** Whether the document holds no setting: an empty object and no comment. */
export const isEmpty = (doc: Document): boolean => doc.text.replace(/\s/g, "") === "{}" || doc.text.trim().length === 0
