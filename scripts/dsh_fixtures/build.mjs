// Bundle write_fixtures.ts against a DeepSeek-Harness checkout (see README.md).
// node build.mjs <dsh-tree> <out.mjs>  (run where esbuild, zod and @standard-schema/spec are installed)
import * as esbuild from 'esbuild'
import { resolve } from 'node:path'
const [tree, out] = process.argv.slice(2)
await esbuild.build({
  entryPoints: [resolve(tree, 'ctxlab/write_fixtures.ts')], bundle: true, platform: 'node', format: 'esm',
  target: 'node22', outfile: out, tsconfig: resolve(tree, 'tsconfig.base.json'),
  nodePaths: [resolve('node_modules')], external: ['koffi'], logLevel: 'error',
  // the bundle is ESM; a few CommonJS requires inside dsh's vendored code need `require`
  banner: { js: "import { createRequire as __cr } from 'module'; const require = __cr(import.meta.url);" },
})
