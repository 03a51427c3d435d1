/**
 * What is shown, with its secrets taken out: one function for every URL and
 * connection string ({@link url}), one for a known key ({@link secret}).
 * Every error message, log, span attribute and JSON output that can hold a
 * store URL, a base URL or a server's reply goes through them.
 *
 * @since 0.1.0
 */

/**
 * What a secret is replaced with in a URL (`postgres://u:***@host/db`).
 *
 * @since 0.1.0
 */
export const urlMask = "***"

/**
 * What a key (or a fragment of it) is replaced with in a text.
 *
 * @since 0.1.0
 */
export const secretMask = "[redacted]"

// Query parameters whose values say how to connect, not who connects: shown as they are.
const SHOWN_PARAMETERS = new Set([
  "sslmode",
  "api-version",
  "application_name",
  "connect_timeout",
  "target_session_attrs",
  "uselibpqcompat"
])

// Schemes whose user information is credentials, never a mere name.
const WEB_SCHEME = /^(https?|wss?|ftps?):/i

// A URL with a scheme, anywhere in a text: up to a blank, a quote or an angle bracket.
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]*/gi
// libpq's keyword form: `password=secret` or `password='se cret'`.
const KEYWORD_PASSWORD = /\b(password|passwd|pwd|sslpassword)(\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&;]+)/gi

// `a=1&b=2` with each value masked but those of SHOWN_PARAMETERS.
const maskParameters = (query: string): string =>
  query.split("&").map((pair) => {
    const eq = pair.indexOf("=")
    if (eq === -1) return pair
    const key = pair.slice(0, eq)
    return SHOWN_PARAMETERS.has(decodeURIComponentSafe(key).toLowerCase()) ? pair : `${key}=${urlMask}`
  }).join("&")

const decodeURIComponentSafe = (text: string): string => {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

// One URL: its password, and the values of its query and fragment parameters, masked.
// Punctuation that ends a sentence is not part of it.
const maskUrl = (match: string): string => {
  const trailing = /[.,;:!?)\]]+$/.exec(match)?.[0] ?? ""
  const text = match.slice(0, match.length - trailing.length)
  const start = text.indexOf("://") + 3
  const rest = text.slice(start)
  // The user information ends at the last `@` before the path, whatever it holds.
  const slash = rest.indexOf("/")
  const at = (slash === -1 ? rest : rest.slice(0, slash)).lastIndexOf("@")
  let shown = text.slice(0, start)
  if (at !== -1) {
    const userinfo = rest.slice(0, at)
    const colon = userinfo.indexOf(":")
    // On the web a lone user part is as often a token (`https://TOKEN@host`) as a name: all of it goes.
    const web = WEB_SCHEME.test(text)
    shown += `${web ? urlMask : colon === -1 ? userinfo : `${userinfo.slice(0, colon)}:${urlMask}`}@`
  }
  let tail = rest.slice(at + 1)
  const hash = tail.indexOf("#")
  const fragment = hash === -1 ? undefined : tail.slice(hash + 1)
  if (hash !== -1) tail = tail.slice(0, hash)
  const question = tail.indexOf("?")
  if (question !== -1) tail = `${tail.slice(0, question + 1)}${maskParameters(tail.slice(question + 1))}`
  const shownFragment = fragment === undefined ? "" : `#${fragment.includes("=") ? maskParameters(fragment) : fragment}`
  return `${shown}${tail}${shownFragment}${trailing}`
}

/**
 * `text` with every URL and connection string in it safe to show: a URL's
 * password (`postgres://user:***@host`; on the web, `http(s)`, `ws(s)` and
 * `ftp(s)`, all the user information, `https://***@host`, since a lone user
 * part there is often a token), the values of its query and fragment
 * parameters (`?api_key=***`; but those that only say how to connect:
 * `sslmode`, `api-version`, `application_name`, `connect_timeout`,
 * `target_session_attrs`) and libpq's `password=...` are masked. The user
 * name, host, port and path stay, so the message still says where. A text
 * without any is returned as it is.
 *
 * @example
 * ```ts
 * import { Redact } from "@precis/core"
 * Redact.url("postgres://u:PW@db.example:5432/precis?sslmode=require")
 * // "postgres://u:***@db.example:5432/precis?sslmode=require"
 * Redact.url("cannot reach http://127.0.0.1:8787/v1?api_key=K: ECONNREFUSED")
 * // "cannot reach http://127.0.0.1:8787/v1?api_key=***: ECONNREFUSED"
 * Redact.url("host=db user=u password=PW") // "host=db user=u password=***"
 * ```
 * @since 0.1.0
 */
export const url = (text: string): string => {
  const masked = text.includes("://") ? text.replace(URL_IN_TEXT, maskUrl) : text
  return masked.replace(KEYWORD_PASSWORD, (_, key: string, eq: string) => `${key}${eq}${urlMask}`)
}

/**
 * The shortest run of a key's characters that counts as a leak of it: a
 * text holding any 8 consecutive characters of the key, in any case, leaks.
 *
 * @since 0.1.0
 */
export const minFragment = 8

// ASCII letters in lower case, every other character as it is: the length never changes,
// so positions in the folded text are positions in the text.
const fold = (text: string): string => text.replace(/[A-Z]+/g, (run) => run.toLowerCase())

/**
 * `text` with `key` taken out: every occurrence of the key, and of any run of
 * at least {@link minFragment} consecutive characters of it, compared without
 * regard to the case of ASCII letters (`SK-TEST-SECRET123`, `sk-test-SECRET12`),
 * becomes {@link secretMask}; overlapping runs become one mask. A key shorter
 * than {@link minFragment} (a placeholder such as `ollama`, which no server
 * checks) is masked only where it appears exactly.
 *
 * @example
 * ```ts
 * import { Redact } from "@precis/core"
 * Redact.secret("key: SK-TEST-SECRET123.", "sk-test-SECRET123") // "key: [redacted]."
 * Redact.secret("it ends in ...SECRET12", "sk-test-SECRET123") // "it ends in ...[redacted]"
 * Redact.secret("nothing here", "sk-test-SECRET123") // "nothing here"
 * ```
 * @since 0.1.0
 */
export const secret = (text: string, key: string): string => {
  if (key.length === 0) return text
  if (key.length < minFragment) return text.includes(key) ? text.split(key).join(secretMask) : text
  const foldedKey = fold(key)
  const grams = new Map<string, Array<number>>()
  for (let i = 0; i + minFragment <= foldedKey.length; i++) {
    const gram = foldedKey.slice(i, i + minFragment)
    const at = grams.get(gram)
    if (at === undefined) grams.set(gram, [i])
    else at.push(i)
  }
  const folded = fold(text)
  // The spans of text that match a run of the key, merged where they touch.
  const spans: Array<[number, number]> = []
  for (let i = 0; i + minFragment <= folded.length; i++) {
    const starts = grams.get(folded.slice(i, i + minFragment))
    if (starts === undefined) continue
    let end = i + minFragment
    for (const start of starts) {
      let length = minFragment
      while (i + length < folded.length && start + length < foldedKey.length && folded[i + length] === foldedKey[start + length]) {
        length++
      }
      end = Math.max(end, i + length)
    }
    const last = spans.at(-1)
    if (last !== undefined && i <= last[1]) last[1] = Math.max(last[1], end)
    else spans.push([i, end])
  }
  if (spans.length === 0) return text
  let out = ""
  let from = 0
  for (const [start, end] of spans) {
    out += text.slice(from, start) + secretMask
    from = end
  }
  return out + text.slice(from)
}
