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

/** The spans of `folded` that match a run of at least `minRun` characters of `foldedKey`, merged where they touch. */
const spansOf = (folded: string, foldedKey: string, minRun: number): Array<[number, number]> => {
  const grams = new Map<string, Array<number>>()
  for (let i = 0; i + minRun <= foldedKey.length; i++) {
    const gram = foldedKey.slice(i, i + minRun)
    const at = grams.get(gram)
    if (at === undefined) grams.set(gram, [i])
    else at.push(i)
  }
  const spans: Array<[number, number]> = []
  for (let i = 0; i + minRun <= folded.length; i++) {
    const starts = grams.get(folded.slice(i, i + minRun))
    if (starts === undefined) continue
    let end = i + minRun
    for (const start of starts) {
      let length = minRun
      while (i + length < folded.length && start + length < foldedKey.length && folded[i + length] === foldedKey[start + length]) {
        length++
      }
      end = Math.max(end, i + length)
    }
    const last = spans.at(-1)
    if (last !== undefined && i <= last[1]) last[1] = Math.max(last[1], end)
    else spans.push([i, end])
  }
  return spans
}

/** `text` with every run of at least `minRun` characters of `form` (any case) masked. */
const maskRuns = (text: string, form: string, minRun: number): string => {
  if (form.length < minRun) return text
  const spans = spansOf(fold(text), fold(form), minRun)
  if (spans.length === 0) return text
  let out = ""
  let from = 0
  for (const [start, end] of spans) {
    out += text.slice(from, start) + secretMask
    from = end
  }
  return out + text.slice(from)
}

const bytesOf = (text: string): Uint8Array => new TextEncoder().encode(text)

/**
 * The key's base64 as it shows inside any base64 text (standard and URL-safe):
 * for each of the three alignments of its bytes, the characters that only its
 * bytes determine.
 */
const base64Forms = (key: string): ReadonlyArray<string> => {
  const bytes = bytesOf(key)
  return [0, 1, 2].flatMap((pad) => {
    const padded = new Uint8Array(pad + bytes.length)
    padded.set(bytes, pad)
    const encoded = btoa(String.fromCharCode(...padded))
    const inner = encoded.slice(Math.ceil((pad * 8) / 6), Math.floor(((pad + bytes.length) * 8) / 6))
    return [inner, inner.replace(/\+/g, "-").replace(/\//g, "_")]
  })
}

const hex = (bytes: Uint8Array, prefix: string): string =>
  Array.from(bytes, (byte) => `${prefix}${byte.toString(16).padStart(2, "0")}`).join("")

/**
 * The forms a key is echoed in, each with the shortest run of it that leaks
 * {@link minFragment} characters of the key: as it is, reversed, URL-encoded
 * (as `encodeURIComponent` does, and every byte), base64 (standard and
 * URL-safe) and hex.
 */
const formsOf = (key: string): ReadonlyArray<readonly [string, number]> => {
  const bytes = bytesOf(key)
  return [
    [key, minFragment],
    [Array.from(key).reverse().join(""), minFragment],
    [encodeURIComponent(key), minFragment],
    [hex(bytes, "%"), minFragment * 3],
    [hex(bytes, ""), minFragment * 2],
    ...base64Forms(key).map((form) => [form, Math.ceil((minFragment * 4) / 3)] as const)
  ]
}

/**
 * `text` with `key` taken out: every occurrence of the key, and of any run of
 * at least {@link minFragment} consecutive characters of it, compared without
 * regard to the case of ASCII letters (`SK-TEST-SECRET123`, `sk-test-SECRET12`),
 * becomes {@link secretMask}; overlapping runs become one mask. So does the
 * key echoed in another form: reversed, URL-encoded, base64 or hex (a run of
 * the form as long as {@link minFragment} characters of the key encode to). A
 * key shorter than {@link minFragment} (a placeholder such as `ollama`, which
 * no server checks) is masked only where it appears exactly.
 *
 * @example
 * ```ts
 * import { Redact } from "@precis/core"
 * Redact.secret("key: SK-TEST-SECRET123.", "sk-test-SECRET123") // "key: [redacted]."
 * Redact.secret("it ends in ...SECRET12", "sk-test-SECRET123") // "it ends in ...[redacted]"
 * Redact.secret("reversed: 321TERCES-tset-ks", "sk-test-SECRET123") // "reversed: [redacted]"
 * Redact.secret("nothing here", "sk-test-SECRET123") // "nothing here"
 * ```
 * @since 0.1.0
 */
export const secret = (text: string, key: string): string => {
  if (key.length === 0) return text
  if (key.length < minFragment) return text.includes(key) ? text.split(key).join(secretMask) : text
  return formsOf(key).reduce((masked, [form, minRun]) => maskRuns(masked, form, minRun), text)
}
