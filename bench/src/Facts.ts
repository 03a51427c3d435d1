/**
 * A deterministic fact extractor: the checkable details a summary of an agent
 * session should keep — file paths, commands, error names and codes, numbers,
 * identifiers in backticks and URLs. Used to measure fact retention.
 *
 * @since 0.1.0
 */

/**
 * The kinds of fact the extractor finds.
 *
 * @since 0.1.0
 */
export type Kind = "path" | "command" | "error" | "code" | "number" | "identifier" | "url"

/**
 * One fact: its kind and its exact text.
 *
 * @since 0.1.0
 */
export interface Fact {
  readonly kind: Kind
  readonly value: string
}

/**
 * The key of a fact in sets: `kind:value`.
 *
 * @since 0.1.0
 */
export const key = (fact: Fact): string => `${fact.kind}:${fact.value}`

/**
 * First words that make a line (in a code block, after a `$` prompt or in
 * backticks) a command: shells, package managers, build and test tools, and the
 * SWE-agent / OpenHands tool verbs.
 *
 * @since 0.1.0
 */
export const commandWords: ReadonlySet<string> = new Set([
  "npm", "pnpm", "yarn", "npx", "node", "tsx", "tsc", "deno", "bun", "git", "python", "python3", "pip", "pip3",
  "pytest", "tox", "make", "cargo", "go", "rustc", "gcc", "javac", "java", "mvn", "gradle", "docker", "kubectl",
  "curl", "wget", "ls", "cat", "cd", "grep", "rg", "find", "sed", "awk", "rm", "mv", "cp", "mkdir", "touch", "chmod",
  "echo", "head", "tail", "bash", "sh", "sudo", "apt", "apt-get", "brew", "vitest", "jest", "eslint", "prettier",
  "open", "create", "edit", "goto", "scroll_up", "scroll_down", "search_file", "search_dir", "find_file", "submit",
  "str_replace_editor", "str_replace_based_edit_tool", "execute_bash", "browser", "insert", "view"
])

// Quotes and back quotes in these patterns are written as escapes (\x22, \x27, \x60), so that
// tools that read the source as text do not take them for the start of a string.
// A URL ends at a blank, a bracket or a quote.
const URL_RE = /\bhttps?:\/\/[^\s<>\x22\x27\x60)\]}]+/g
const PATH_RE =
  /(?<![\w.\/-])(?:~\/|\.{1,2}\/|\/)?(?:[\w.@+-]+\/)+[\w.@+-]+|(?<![\w.\/-])[\w-]+\.(?:ts|tsx|js|jsx|mjs|cjs|py|json|md|rs|go|java|kt|c|h|cc|cpp|hpp|rb|php|yml|yaml|toml|txt|sh|vue|html|css|scss|cfg|ini|lock|sql|xml|csv|traj|dcm|log)\b/g
const EXT_RE = /\.[A-Za-z][A-Za-z0-9]{0,5}$/
const ERROR_NAME_RE = /\b[A-Z][A-Za-z0-9]*(?:Error|Exception|Warning|Fault)\b/g
const ERROR_CODE_RE = /\b(?:E[A-Z]{3,}|ERR_[A-Z0-9_]+|[A-Z]{1,3}\d{3,5})\b/g
const NUMBER_RE = /(?<![\w.])\d+(?:[.,:]\d+)*(?![\w])/g
const INLINE_CODE_RE = /(?<!\x60)\x60([^\x60\n]+)\x60(?!\x60)/g
const IDENTIFIER_RE = /^[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*(?:\(\))?$/
const TURN_PREFIX_RE = /^\[[^\]\n]{1,40}\] [^\s:]{1,40}: /
const MARKER_RE = /\[…[^\]\n]*\]/g

const trimPunctuation = (s: string): string => s.replace(/[.,;:!?]+$/, "")

const normalizeCommand = (s: string): string => s.trim().replace(/\s+/g, " ")

const isCommand = (line: string): boolean => {
  const first = line.trim().split(/\s+/, 1)[0] ?? ""
  return commandWords.has(first) || first.startsWith("./") && first.length > 2
}

// A path candidate is kept when it is not prose like "and/or": it has an
// extension, two or more slashes, or an explicit root.
const isPath = (candidate: string): boolean => {
  if (!/[A-Za-z]/.test(candidate)) return false
  if (/^(?:~\/|\.{1,2}\/|\/)/.test(candidate)) return candidate.length > 2
  const slashes = candidate.split("/").length - 1
  return EXT_RE.test(candidate) || slashes >= 2
}

/**
 * Removes what rendering adds to a line rather than what it says: the
 * `[time] role: ` turn prefix, the two-space continuation indent, and
 * `[… …]` omission markers.
 *
 * @since 0.1.0
 */
export const stripRendering = (line: string): string =>
  line.replace(TURN_PREFIX_RE, "").replace(MARKER_RE, " ").replace(/^ {2}/, "")

/**
 * The facts of each line of `text`, in order, each line's facts unique. Code
 * blocks (``` fences) are tracked across lines, so a command inside a block
 * counts as a command.
 *
 * @since 0.1.0
 */
export const byLine = (text: string): ReadonlyArray<ReadonlyArray<Fact>> => {
  const out: Array<ReadonlyArray<Fact>> = []
  let inBlock = false
  for (const raw of text.split("\n")) {
    const line = stripRendering(raw)
    const trimmed = line.trim()
    if (trimmed.startsWith("```")) {
      inBlock = !inBlock
      out.push(lineFacts(trimmed.slice(3).replace(/^\x60+/, ""), false))
      continue
    }
    out.push(lineFacts(line, inBlock))
  }
  return out
}

const lineFacts = (line: string, inBlock: boolean): ReadonlyArray<Fact> => {
  const facts = new Map<string, Fact>()
  const add = (kind: Kind, value: string) => {
    if (value.length === 0) return
    const fact: Fact = { kind, value }
    facts.set(key(fact), fact)
  }
  let rest = line
  for (const m of line.matchAll(URL_RE)) {
    add("url", trimPunctuation(m[0]))
    rest = rest.replace(m[0], " ")
  }
  const trimmed = rest.trim()
  const prompt = /^\$ (.+)$/.exec(trimmed)
  if (prompt !== null && isCommand(prompt[1]!)) add("command", normalizeCommand(prompt[1]!))
  else if (inBlock && trimmed.length > 0 && trimmed.length <= 200 && isCommand(trimmed)) {
    add("command", normalizeCommand(trimmed))
  }
  for (const m of rest.matchAll(INLINE_CODE_RE)) {
    const code = m[1]!.trim()
    if (isCommand(code)) add("command", normalizeCommand(code))
    else if (IDENTIFIER_RE.test(code)) add("identifier", code)
  }
  for (const m of rest.matchAll(PATH_RE)) {
    const candidate = trimPunctuation(m[0])
    if (isPath(candidate)) add("path", candidate)
  }
  for (const m of rest.matchAll(ERROR_NAME_RE)) add("error", m[0])
  for (const m of rest.matchAll(ERROR_CODE_RE)) add("code", m[0])
  for (const m of rest.matchAll(NUMBER_RE)) {
    // Single digits are everywhere (list items, counts) and say little.
    if (m[0].length >= 2) add("number", m[0])
  }
  return [...facts.values()]
}

/**
 * The distinct facts of `text`, in order of first appearance.
 *
 * @example
 * ```ts
 * import { Facts } from "@precis/bench"
 * Facts.extract("Run `npm test` in src/app.ts: TypeError at line 42")
 * // command "npm test", path "src/app.ts", error "TypeError", number "42"
 * ```
 * @since 0.1.0
 */
export const extract = (text: string): ReadonlyArray<Fact> => {
  const all = new Map<string, Fact>()
  for (const facts of byLine(text)) for (const f of facts) if (!all.has(key(f))) all.set(key(f), f)
  return [...all.values()]
}

const isWordChar = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95

/**
 * Whether `value` occurs in `text` as a whole token: where its first (last)
 * character is a word character, the character before (after) it is not.
 *
 * @since 0.1.0
 */
export const containsToken = (text: string, value: string): boolean => {
  if (value.length === 0) return false
  const checkStart = isWordChar(value.charCodeAt(0))
  const checkEnd = isWordChar(value.charCodeAt(value.length - 1))
  let from = 0
  for (;;) {
    const i = text.indexOf(value, from)
    if (i < 0) return false
    const okStart = !checkStart || i === 0 || !isWordChar(text.charCodeAt(i - 1))
    const j = i + value.length
    const okEnd = !checkEnd || j >= text.length || !isWordChar(text.charCodeAt(j))
    if (okStart && okEnd) return true
    from = i + 1
  }
}

/**
 * The share (0..1) of `facts` that `text` keeps: a fact is kept when the
 * extractor finds it in `text`, or when its value occurs in `text` as a whole
 * token (so a command kept outside its code block still counts). `1` when
 * there are no facts.
 *
 * @since 0.1.0
 */
export const retention = (facts: ReadonlyArray<Fact>, text: string): number => {
  if (facts.length === 0) return 1
  const found = new Set(extract(text).map(key))
  let kept = 0
  for (const f of facts) if (found.has(key(f)) || containsToken(text, f.value)) kept++
  return kept / facts.length
}

/**
 * How many facts of each kind.
 *
 * @since 0.1.0
 */
export const countByKind = (facts: ReadonlyArray<Fact>): Record<Kind, number> => {
  const counts: Record<Kind, number> = { path: 0, command: 0, error: 0, code: 0, number: 0, identifier: 0, url: 0 }
  for (const f of facts) counts[f.kind]++
  return counts
}
