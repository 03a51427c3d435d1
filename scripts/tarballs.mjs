#!/usr/bin/env node
// `pnpm tarballs [DIR]`: builds the workspace's public packages (each packages/*/package.json
// without `"private": true`) and writes one tarball per package into DIR (default
// `precis-packages`), with `pnpm pack`. Then, in your project:
//
//   npm install DIR/*.tgz
//
// installs them all (npm installs their peers, effect and the @effect/* packages, from the
// registry). `pnpm pack-check` runs exactly this path. Any failure exits non-zero with the
// command and its output.
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

/** The root of the workspace. */
export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")

const say = (message) => process.stderr.write(`${message}\n`)

/** Fails with `message`, naming the script. */
export const fail = (name, message) => {
  process.stderr.write(`${name}: FAILED: ${message}\n`)
  process.exit(1)
}

/** Runs a command; on a non-zero exit fails with its output. Returns stdout. */
export const run = (name, command, args, cwd, env = process.env) => {
  try {
    return execFileSync(command, args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 * 2 ** 20 })
  } catch (error) {
    fail(name, `${command} ${args.join(" ")} (in ${cwd}) exited with ${error.status}\n${error.stdout ?? ""}${error.stderr ?? ""}`)
  }
}

/** The public packages: `{ dir, manifest }`, in no particular order. */
export const publicPackages = () =>
  fs.readdirSync(path.join(root, "packages"))
    .map((name) => path.join(root, "packages", name))
    .filter((dir) => fs.existsSync(path.join(dir, "package.json")))
    .map((dir) => ({ dir, manifest: JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) }))
    .filter(({ manifest }) => manifest.private !== true)

/**
 * Builds the public packages (and the CLI's bundle) and packs each into `dir`, which is created
 * and emptied of earlier tarballs. Returns `{ name: tarball path }`.
 */
export const writeTarballs = (dir, name = "tarballs") => {
  const packages = publicPackages()
  say(`${name}: building ${packages.map(({ manifest }) => manifest.name).join(", ")}`)
  run(name, "pnpm", ["exec", "tsc", "-b", ...packages.map(({ dir }) => path.join(dir, "tsconfig.src.json"))], root)
  // The precis bin runs the bundle of the compiled CLI.
  run(name, "node", [path.join(root, "packages", "cli", "scripts", "bundle.mjs")], root)
  fs.mkdirSync(dir, { recursive: true })
  for (const file of fs.readdirSync(dir)) if (file.endsWith(".tgz")) fs.rmSync(path.join(dir, file))
  say(`${name}: packing into ${dir}`)
  const tarballOf = {}
  for (const { dir: packageDir, manifest } of packages) {
    const before = new Set(fs.readdirSync(dir))
    run(name, "pnpm", ["pack", "--pack-destination", dir], packageDir)
    const created = fs.readdirSync(dir).filter((file) => !before.has(file))
    if (created.length !== 1) fail(name, `pnpm pack of ${manifest.name} made ${created.length} tarballs`)
    tarballOf[manifest.name] = path.join(dir, created[0])
  }
  return tarballOf
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = path.resolve(process.argv[2] ?? "precis-packages")
  const tarballs = writeTarballs(dir)
  say(`tarballs: ${Object.keys(tarballs).length} packages in ${dir}; in your project run:`)
  process.stdout.write(`npm install ${dir}/*.tgz\n`)
}
