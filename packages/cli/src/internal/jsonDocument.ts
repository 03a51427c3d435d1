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

/** The longest prefix of `path` that names a node of `text`, and the value to put at the next step. */
const anchor = (text: string, path: Path, value: unknown): { readonly path: Path; readonly value: unknown } => {
  const tree = Jsonc.parseTree(text)
  let depth = path.length - 1
  while (depth > 0 && (tree === undefined || Jsonc.findNodeAtLocation(tree, path.slice(0, depth) as Jsonc.JSONPath) === undefined)) {
    depth--
  }
  let wrapped = value
  for (let i = path.length - 1; i > depth; i--) {
    const step = path[i]!
    wrapped = typeof step === "number" ? [wrapped] : { [step]: wrapped }
  }
  return { path: path.slice(0, depth + 1), value: wrapped }
}

/** The text of the container at `path` (none when missing). */
const containerAt = (text: string, path: Path): Jsonc.Node | undefined => {
  const tree = Jsonc.parseTree(text)
  return tree === undefined ? undefined : path.length === 0 ? tree : Jsonc.findNodeAtLocation(tree, path as Jsonc.JSONPath)
}

/** `text` with the container at `path` written `{}` / `[]` when nothing but blanks is left in it. */
const collapsed = (text: string, path: Path): string => {
  const node = containerAt(text, path)
  if (node === undefined || (node.type !== "object" && node.type !== "array") || (node.children?.length ?? 0) > 0) return text
  if (text.slice(node.offset + 1, node.offset + node.length - 1).trim() !== "") return text
  return `${text.slice(0, node.offset)}${node.type === "object" ? "{}" : "[]"}${text.slice(node.offset + node.length)}`
}

/**
 * The document with `value` at `path` (`undefined`: that key or list item
 * taken out, and its container written `{}` or `[]` when left empty), the
 * folders on the way created; one edit of the text, the new part laid out
 * in the file's indentation (compact in a container written on one line).
 */
export const set = (doc: Document, path: Path, value: unknown): Document => {
  const text = doc.text.trim().length === 0 ? "{}\n" : doc.text
  if (value === undefined) {
    const removed = Jsonc.applyEdits(text, Jsonc.modify(text, path as Jsonc.JSONPath, undefined, {}))
    const next = collapsed(removed, path.slice(0, -1))
    return { text: next, value: Jsonc.parse(next, [], { allowTrailingComma: true }) as Json }
  }
  const target = anchor(text, path, value)
  const last = target.path[target.path.length - 1]
  const edits = Jsonc.modify(text, target.path as Jsonc.JSONPath, target.value, { isArrayInsertion: last === -1 })
  const layout = layoutOf(text)
  const container = containerAt(text, target.path.slice(0, -1))
  const oneLine = container !== undefined && !text.slice(container.offset, container.offset + container.length).includes("\n") &&
    (container.children?.length ?? 0) > 0
  const laidOut = oneLine ? edits : edits.map((edit) => {
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
  const next = Jsonc.applyEdits(text, laidOut)
  return { text: next, value: Jsonc.parse(next, [], { allowTrailingComma: true }) as Json }
}

/** Whether the document holds no setting: an empty object and no comment. */
export const isEmpty = (doc: Document): boolean => doc.text.replace(/\s/g, "") === "{}" || doc.text.trim().length === 0
