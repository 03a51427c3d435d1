/**
 * Where `precis serve` may listen, and which requests it answers. The viewer
 * shows every transcript of the store, so two rules hold here:
 *
 * - It listens on this machine only (a loopback address or `localhost`)
 *   unless told otherwise with `--allow-remote`, and then it says so; an empty
 *   `--host` (which Node reads as every interface) is refused.
 * - It answers only requests naming, in their `Host` header, a name it is
 *   bound to (or `localhost`): a web page elsewhere can make a name of its
 *   own resolve to 127.0.0.1 (DNS rebinding) and read the viewer as its own
 *   origin, but its requests still carry that name.
 *
 * @internal
 */
import * as Either from "effect/Either"
import * as net from "node:net"
import * as os from "node:os"

const unbracketed = (host: string): string => (host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host)

/** Whether `host` names every interface (`0.0.0.0`, `::`, `0`). */
const isWildcard = (host: string): boolean => {
  const bare = unbracketed(host.trim())
  return bare === "0" || bare === "0.0.0.0" || (net.isIPv6(bare) && /^[0:]+$/.test(bare))
}

/**
 * A host name or address as a URL writes it: lower case, IPv4 in dotted
 * decimal, IPv6 compressed in brackets; `undefined` when it is none.
 */
const canonical = (host: string): string | undefined => {
  const bare = unbracketed(host.trim()).replace(/%.*$/, "")
  try {
    return new URL(`http://${net.isIPv6(bare) ? `[${bare}]` : bare}/`).hostname
  } catch {
    return undefined
  }
}

const LOOPBACK = ["localhost", "127.0.0.1", "[::1]"]

/** Whether `host` is this machine only: `localhost`, 127.0.0.0/8 or ::1 (also IPv4-mapped). */
export const isLoopback = (host: string): boolean => {
  const name = canonical(host)
  return name !== undefined &&
    (name === "localhost" || name === "[::1]" || (net.isIPv4(name) && name.startsWith("127.")) ||
      /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(name))
}

/**
 * Whether `serve` may listen on `host`: never on an empty one; off this
 * machine only with `allowRemote`, and then with the warning to print.
 */
export const checkBind = (
  host: string,
  allowRemote: boolean
): Either.Either<{ readonly warning?: string }, string> => {
  if (host.trim().length === 0) {
    return Either.left("--host must name an address (an empty one would serve every interface)")
  }
  if (canonical(host) === undefined) return Either.left(`--host ${JSON.stringify(host)} is not a host name or address`)
  if (isLoopback(host)) return Either.right({})
  const where = isWildcard(host) ? "every network interface" : host
  if (!allowRemote) {
    return Either.left(
      `--host ${host} serves ${where}, so other machines could read every transcript in the store: ` +
        "give --allow-remote to mean it"
    )
  }
  return Either.right({
    warning: `serving ${where}: anyone who can reach this machine on the port can read every transcript in the store`
  })
}

// The names a request may give for a server bound to `host`.
const namesFor = (host: string): ReadonlySet<string> => {
  const names = new Set(LOOPBACK)
  if (isWildcard(host)) {
    for (const address of Object.values(os.networkInterfaces()).flat()) {
      const name = address === undefined ? undefined : canonical(address.address)
      if (name !== undefined) names.add(name)
    }
    const self = canonical(os.hostname())
    if (self !== undefined) names.add(self)
  } else {
    const name = canonical(host)
    if (name !== undefined) names.add(name)
  }
  return names
}

/** What the `Host` header of a request says about it. */
export type HostCheck = "ok" | "missing" | "foreign"

/**
 * The check of a request's `Host` header for a server bound to `host`: `ok`
 * when it names the server (any port), `missing` when there is none or it is
 * no host, `foreign` when it names another host.
 */
export const hostCheck = (host: string): (header: string | undefined) => HostCheck => {
  const names = namesFor(host)
  return (header) => {
    if (header === undefined || header.trim().length === 0) return "missing"
    let name: string
    try {
      const url = new URL(`http://${header.trim()}/`)
      if (url.username !== "" || url.password !== "" || url.pathname !== "/" || url.search !== "") return "foreign"
      name = url.hostname
    } catch {
      return "missing"
    }
    return names.has(name) ? "ok" : "foreign"
  }
}
