/**
 * Where `precis serve` may listen and which `Host` headers it answers
 * (`internal/bind.ts`), over many spellings of the same addresses.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as os from "node:os"
import * as Bind from "../src/internal/bind.js"

describe("serve's bind address", () => {
  it("loopback is localhost, 127.0.0.0/8 and ::1 in any spelling; nothing else", () => {
    for (const host of ["localhost", "LOCALHOST", "127.0.0.1", "127.1", "127.255.0.9", "::1", "[::1]", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1"]) {
      assert.isTrue(Bind.isLoopback(host), host)
    }
    for (const host of ["0.0.0.0", "::", "0", "10.0.0.1", "192.168.1.2", "fe80::1", "localhost.example.com", "127.0.0.1.nip.io", "example.com"]) {
      assert.isFalse(Bind.isLoopback(host), host)
    }
  })

  it("refuses an empty host, and any other machine's view without --allow-remote", () => {
    for (const host of ["", " ", "\t"]) {
      assert.deepStrictEqual(
        Bind.checkBind(host, true),
        Either.left("--host must name an address (an empty one would serve every interface)")
      )
    }
    for (const host of ["0.0.0.0", "::", "[::]", "0", "192.168.1.2", "example.com"]) {
      const refused = Bind.checkBind(host, false)
      assert.isTrue(Either.isLeft(refused), host)
      assert.include(Either.getLeft(refused).pipe((o) => o._tag === "Some" ? o.value : ""), "--allow-remote")
    }
    assert.isTrue(Either.isLeft(Bind.checkBind("not a host", true)))
  })

  it("with --allow-remote, serves and warns; loopback needs no flag and gets no warning", () => {
    assert.deepStrictEqual(Bind.checkBind("127.0.0.1", false), Either.right({}))
    assert.deepStrictEqual(Bind.checkBind("::1", false), Either.right({}))
    const every = Bind.checkBind("0.0.0.0", true)
    assert.isTrue(Either.isRight(every))
    assert.match(Either.getOrThrow(every).warning!, /^serving every network interface: anyone who can reach this machine/)
    assert.match(Either.getOrThrow(Bind.checkBind("::", true)).warning!, /every network interface/)
    assert.match(Either.getOrThrow(Bind.checkBind("192.168.1.2", true)).warning!, /^serving 192\.168\.1\.2: /)
  })
})

describe("the Host a request names", () => {
  it("on a loopback bind: the bound address, localhost and loopback literals, any port or case", () => {
    const check = Bind.hostCheck("127.0.0.1")
    for (const header of ["127.0.0.1", "127.0.0.1:4321", "localhost:4321", "LocalHost:1", "[::1]:4321", "127.1:80"]) {
      assert.strictEqual(check(header), "ok", header)
    }
  })

  it("refuses another name (DNS rebinding), in every disguise", () => {
    const check = Bind.hostCheck("127.0.0.1")
    for (
      const header of [
        "attacker.example",
        "attacker.example:4321",
        "localhost.attacker.example",
        "127.0.0.1.nip.io:4321",
        "localhost:4321@attacker.example",
        "attacker.example/127.0.0.1",
        "localhost.",
        "10.0.0.1",
        "[::2]"
      ]
    ) {
      assert.strictEqual(check(header), "foreign", header)
    }
  })

  it("answers a request without a usable Host as missing", () => {
    const check = Bind.hostCheck("127.0.0.1")
    for (const header of [undefined, "", "  ", "a b", "[::1", "exa mple:80"]) assert.strictEqual(check(header), "missing", String(header))
  })

  it("on an every-interface bind: this machine's addresses and name, not another's", () => {
    const check = Bind.hostCheck("0.0.0.0")
    const own = Object.values(os.networkInterfaces()).flat().flatMap((a) => (a === undefined || a.family !== "IPv4" ? [] : [a.address]))
    for (const address of own) assert.strictEqual(check(`${address}:4321`), "ok", address)
    assert.strictEqual(check(os.hostname()), "ok")
    assert.strictEqual(check("localhost:4321"), "ok")
    assert.strictEqual(check("attacker.example:4321"), "foreign")
  })
})
