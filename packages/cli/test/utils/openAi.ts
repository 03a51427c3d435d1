/**
 * A fake OpenAI-compatible server on a loopback port, for the tests of
 * `--provider openai`: it records each request and answers as told.
 */
import { createServer, type IncomingMessage, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll } from "vitest"

/** The server's state, read and set by the tests. */
export interface FakeOpenAi {
  /** `http://127.0.0.1:PORT/v1` (once `beforeAll` has run). */
  baseUrl: string
  /** The requests received: their Authorization header and body. */
  readonly seen: Array<{ readonly authorization: string | undefined; readonly body: { readonly model?: string } }>
  /** The status of the answers: 200 replies `Edited src/module1.ts.`, others an error body. */
  status: number
  /** When set, requests are never answered. */
  stall: boolean
}

/** Starts the server before the tests of the file (or `describe` block) that calls it, and stops it after them. */
export const fakeOpenAi = (): FakeOpenAi => {
  const state: FakeOpenAi = { baseUrl: "", seen: [], status: 200, stall: false }
  let server: Server
  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      let body = ""
      req.on("data", (chunk) => (body += chunk))
      req.on("end", () => {
        state.seen.push({ authorization: req.headers.authorization, body: JSON.parse(body) })
        if (state.stall) return // never answers
        res.writeHead(state.status, { "content-type": "application/json" })
        res.end(
          state.status === 200
            ? JSON.stringify({ choices: [{ message: { role: "assistant", content: "Edited src/module1.ts." } }] })
            : JSON.stringify({ error: { message: "invalid api key" } })
        )
      })
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    state.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
  })
  afterAll(() =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  )
  return state
}

/** An API key the tests check never shows up in any output. */
export const SECRET = "sk-test-DO-NOT-PRINT-1234567890"
