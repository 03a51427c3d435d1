import { fileURLToPath } from "node:url"

/**
 * Settings every package's vitest project shares. Tests run on sources: each
 * workspace package's `exports` lists `"@precis/source": "./src/index.ts"`
 * before its `dist/` entries, and vitest resolves with that condition first
 * (then Vite's default server conditions), so no build is needed to test.
 */
export const ssr = {
  resolve: { conditions: ["@precis/source", "module", "node", "development|production"] }
}

/**
 * Run before every test file: `vitest.setup.ts` makes `assert.deepStrictEqual`
 * sound on Effect data (without it `Option.none()` equals `Option.some(3)`).
 */
export const setupFiles = [fileURLToPath(new URL("./vitest.setup.ts", import.meta.url))]
