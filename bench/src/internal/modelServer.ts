/**
 * A simulated model behind an OpenAI-compatible endpoint on loopback, for the
 * sections that run `precis` as a process against a model it waits on
 * (`fleet`, `watch`).
 *
 * @internal
 */
import { createHash } from "node:crypto"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

/**
 * The simulated model's latency range in milliseconds: `PRECIS_BENCH_MODEL_MS`
 * (`MIN-MAX`), 20 to 50 by default.
 */
export const latencyRange = (): { readonly min: number; readonly max: number } => {
  const setting = process.env.PRECIS_BENCH_MODEL_MS ?? "20-50"
  const match = /^(\d+)-(\d+)$/.exec(setting)
  if (match === null || Number(match[1]) > Number(match[2])) {
    throw new Error(`PRECIS_BENCH_MODEL_MS must be MIN-MAX in milliseconds (e.g. 20-50), not ${JSON.stringify(setting)}`)
  }
  return { min: Number(match[1]), max: Number(match[2]) }
}

/**
 * A simulated model behind an OpenAI-compatible endpoint: each call answers
 * after a delay within `range` with the last 800 characters of the request's
 * last message (about 200 tokens: shorter than any chunk's material, so the
 * normal tier keeps it), both derived from a hash of the request, so runs repeat.
 */
export const start = async (range: { readonly min: number; readonly max: number }) => {
  const server = createServer((request, response) => {
    let body = ""
    request.on("data", (chunk: Buffer) => (body += chunk.toString()))
    request.on("end", () => {
      const parsed = JSON.parse(body) as { readonly messages: ReadonlyArray<{ readonly content: string }> }
      const last = parsed.messages[parsed.messages.length - 1]?.content ?? ""
      const delay = range.min + createHash("sha1").update(body).digest().readUInt32BE(0) % (range.max - range.min + 1)
      setTimeout(() => {
        response.writeHead(200, { "content-type": "application/json" })
        response.end(JSON.stringify({
          choices: [{ message: { role: "assistant", content: `Summary: ${last.slice(-800).replace(/\s+/g, " ")}` } }]
        }))
      }, delay)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    env: {
      PRECIS_OPENAI_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      PRECIS_OPENAI_MODEL: "simulated"
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/** A running simulated model: the variables that point `--provider openai` at it, and how to stop it. */
export type Model = Awaited<ReturnType<typeof start>>
