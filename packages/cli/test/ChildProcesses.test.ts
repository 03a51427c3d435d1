/**
 * The processes `serve` starts for its searches and context pages are told
 * the store through their environment (`PRECIS_DB`), never on their command
 * line, which any user of the machine can read: a PostgreSQL URL's password
 * stays private. A stand-in executable records what it was given.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as ContextProcess from "../src/internal/contextProcess.js"
import * as SearchProcess from "../src/internal/searchProcess.js"

const db = "postgres://precis:s3cret-PW@127.0.0.1:5432/precis?sslpassword=other-secret"

/** A stand-in `precis` that writes its argv and PRECIS_DB to `record`, then prints `stdout`. */
const standIn = (record: string, stdout: string): ReadonlyArray<string> => [
  process.execPath,
  "-e",
  `require("fs").writeFileSync(${JSON.stringify(record)}, JSON.stringify({ argv: process.argv, db: process.env.PRECIS_DB }));` +
  `process.stdout.write(${JSON.stringify(stdout)})`
]

describe("serve's child processes", () => {
  it.effect("a search and a context page name the store in the environment, not on the command line", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "precis-child-"))
      const searched = path.join(dir, "search.json")
      const hits = yield* SearchProcess.make(standIn(searched, JSON.stringify({ hits: [] })), db, "30 seconds")(
        "s",
        "pdf",
        5
      )
      assert.deepStrictEqual(hits, [])
      const assembled = path.join(dir, "context.json")
      const page = yield* ContextProcess.make(standIn(assembled, "Session state"), db, "30 seconds")("s", 4000)
      assert.strictEqual(page.text, "Session state")
      for (const file of [searched, assembled]) {
        const seen = JSON.parse(fs.readFileSync(file, "utf8")) as { argv: ReadonlyArray<string>; db: string }
        assert.strictEqual(seen.db, db)
        const line = seen.argv.join(" ")
        assert.notInclude(line, "s3cret-PW")
        assert.notInclude(line, "other-secret")
        assert.notInclude(line, "--db")
      }
    }))
})
