/**
 * One redaction for every URL and connection string, one for a known key:
 * several variants of each secret's place and spelling.
 */
import { assert, describe, it } from "@effect/vitest"
import { Redact } from "@precis/core"

describe("Redact.url", () => {
  it("masks a URL's password, wherever the URL is in a text", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["postgres://u:PW@host/db", "postgres://u:***@host/db"],
      ["postgresql://u:PW@host:5432/db?sslmode=require", "postgresql://u:***@host:5432/db?sslmode=require"],
      ["http://u:PW@host", "http://***@host"],
      ["https://u:P@W:x@host/v1", "https://***@host/v1"],
      ["https://ghp_TOKEN@github.com/o/r", "https://***@github.com/o/r"],
      ["postgres://precis@127.0.0.1:54329/db", "postgres://precis@127.0.0.1:54329/db"],
      ["precis: cannot open postgres://u:PW@h/db: refused", "precis: cannot open postgres://u:***@h/db: refused"],
      ["(postgres://u:PW@h/db)", "(postgres://u:***@h/db)"],
      ["url=\"http://u:PW@h\"", "url=\"http://***@h\""],
      ["two: http://a:1@h and redis://b:2@k.", "two: http://***@h and redis://b:***@k."],
      ["POSTGRES://U:PW@H/DB", "POSTGRES://U:***@H/DB"]
    ]
    for (const [text, shown] of cases) assert.strictEqual(Redact.url(text), shown)
  })

  it("masks query and fragment values but those that only say how to connect", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["http://h/v1?api_key=K", "http://h/v1?api_key=***"],
      ["http://h/v1?key=K&api-version=2024-02-01", "http://h/v1?key=***&api-version=2024-02-01"],
      ["http://h/v1?token=K: ECONNREFUSED", "http://h/v1?token=***: ECONNREFUSED"],
      ["postgres://h/db?password=PW&sslmode=require", "postgres://h/db?password=***&sslmode=require"],
      ["http://h/cb#access_token=K&state=s", "http://h/cb#access_token=***&state=***"],
      ["http://h/v1?sig=K#frag", "http://h/v1?sig=***#frag"],
      ["http://h/docs#section-2", "http://h/docs#section-2"]
    ]
    for (const [text, shown] of cases) assert.strictEqual(Redact.url(text), shown)
  })

  it("masks libpq's keyword form and leaves text without secrets as it is", () => {
    assert.strictEqual(Redact.url("host=db user=u password=PW dbname=x"), "host=db user=u password=*** dbname=x")
    assert.strictEqual(Redact.url("password='p w' host=h"), "password=*** host=h")
    for (const text of ["precis.db", "./stores/a.db", "http://127.0.0.1:8787/v1", "postgres://precis@127.0.0.1:54329/postgres"]) {
      assert.strictEqual(Redact.url(text), text)
    }
  })
})

describe("Redact.secret", () => {
  const key = "sk-test-SECRET123"

  it("masks the key in any case, and any run of 8 or more of its characters", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      [`key ${key}.`, "key [redacted]."],
      ["key SK-TEST-SECRET123.", "key [redacted]."],
      ["key sk-test-secret123.", "key [redacted]."],
      ["key sk-test-SECRET12.", "key [redacted]."],
      ["key k-test-SECRET123.", "key [redacted]."],
      ["ends in ...SECRET123", "ends in ...[redacted]"],
      ["middle: test-SEC here", "middle: [redacted] here"],
      [`twice ${key} and ${key.toUpperCase()}`, "twice [redacted] and [redacted]"],
      [`glued ${key}${key}`, "glued [redacted]"]
    ]
    for (const [text, shown] of cases) assert.strictEqual(Redact.secret(text, key), shown, text)
  })

  it("leaves text without 8 of the key's characters in a row as it is", () => {
    for (const text of ["nothing here", "sk-test", "SECRET1", "the test passed", ""]) {
      assert.strictEqual(Redact.secret(text, key), text)
    }
  })

  it("masks the key echoed in another form: reversed, URL-encoded, base64 (any alignment, URL-safe), hex", () => {
    const keys = [key, "sk-proj-Ab+/9_x=Qz~é", "0123456789abcdefXYZ"]
    const b64 = (text: string) => btoa(String.fromCharCode(...new TextEncoder().encode(text)))
    const bytesHex = (text: string, prefix = "") =>
      Array.from(new TextEncoder().encode(text), (b) => `${prefix}${b.toString(16).padStart(2, "0")}`).join("")
    for (const secret of keys) {
      const forms = [
        Array.from(secret).reverse().join(""),
        encodeURIComponent(secret),
        bytesHex(secret, "%"),
        bytesHex(secret, "%").toUpperCase(),
        bytesHex(secret),
        b64(secret),
        b64(`x${secret}`),
        b64(`xy${secret}`),
        b64(`Authorization: Bearer ${secret}`),
        b64(secret).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""),
        b64(secret).toLowerCase()
      ]
      for (const form of forms) {
        const shown = Redact.secret(`echo: ${form} .`, secret)
        assert.include(shown, "[redacted]", `${secret} as ${form}`)
        // What is left of the form says less than minFragment characters of the key.
        for (const part of shown.split("[redacted]")) {
          assert.notInclude(part, secret.slice(0, Redact.minFragment), form)
          assert.notInclude(part, b64(secret).slice(0, 12), form)
        }
      }
    }
    // Plain text is left alone: no run of any form of the key in it.
    for (const text of ["the build passed in 4.2s", "SGVsbG8gd29ybGQ= is hello world", "deadbeefcafe", "%20%21"]) {
      assert.strictEqual(Redact.secret(text, key), text)
    }
  })

  it("masks a short placeholder key only where it appears exactly", () => {
    assert.strictEqual(Redact.secret("ollama key ollama, Ollama the server", "ollama"), "[redacted] key [redacted], Ollama the server")
    assert.strictEqual(Redact.secret("anything", ""), "anything")
  })

  it("keeps the rest of a text the same length and place, non-ASCII included", () => {
    assert.strictEqual(Redact.secret("İstanbul SK-TEST-SECRET123 ü", key), "İstanbul [redacted] ü")
  })
})
