/**
 * Settings every package's vitest project shares. Tests run on sources: each
 * workspace package's `exports` lists `"@precis/source": "./src/index.ts"`
 * before its `dist/` entries, and vitest resolves with that condition first
 * (then Vite's default server conditions), so no build is needed to test.
 */
export const ssr = {
  resolve: { conditions: ["@precis/source", "module", "node", "development|production"] }
}
