/**
 * A scripted OpenAI-compatible server on loopback, and ports nobody listens
 * on, for the tests of what the CLI does with a model server.
 */
import * as Effect from "effect/Effect"
import { createServer, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"

/** What the server answers to one request: a status and the reply's content (or an error message). */
export interface Answer {
  readonly status: number
  readonly content: string
  /** Headers of the reply (a redirect's `location`). */
  readonly headers?: Record<string, string>
}

/** A request the server saw: its path and query, and its Authorization header. */
export interface Seen {
  readonly url: string
  readonly authorization: string | undefined
}

/** A loopback server answering each Chat Completions request with `answer`, closed with the scope. */
export const modelServer = (answer: (request: Seen) => Answer) =>
  Effect.gen(function*() {
    const seen: Array<Seen> = []
    const server = createServer((req: IncomingMessage, res) => {
      req.resume()
      req.on("end", () => {
        const request = { url: req.url ?? "", authorization: req.headers.authorization }
        seen.push(request)
        const { content, headers, status } = answer(request)
        res.writeHead(status, { "content-type": "application/json", ...headers })
        res.end(JSON.stringify(
          status === 200
            ? { choices: [{ message: { role: "assistant", content } }] }
            : { error: { message: content } }
        ))
      })
    })
    yield* Effect.acquireRelease(
      Effect.async<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void))),
      () =>
        Effect.async<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    const port = (server.address() as AddressInfo).port
    return { baseUrl: `http://127.0.0.1:${port}/v1`, port, seen }
  })

/** A port that was free a moment ago: nothing listens there. */
export const closedPort = Effect.async<number>((resume) => {
  const probe = createServer()
  probe.listen(0, "127.0.0.1", () => {
    const port = (probe.address() as AddressInfo).port
    probe.close(() => resume(Effect.succeed(port)))
  })
})
