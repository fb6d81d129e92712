// The reference tool of the similarity benchmark (bench/similarity.py): Dolos
// (@dodona/dolos-lib 3.5.1, installed apart: docs/similarity.md) with its defaults, run on
// the groups of files it is given. Reads JSON on stdin:
//   [{"language": "python", "ignore": "template path or null", "paths": [...]}, ...]
// and writes, per group, every pair's similarity: [[path, path, similarity], ...].
// Dolos 3.5.1 has no Kotlin parser: a group with language "char" uses its character
// tokenizer, its fallback for any text.
import { Dolos } from "@dodona/dolos-lib";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const result = [];
for (const group of JSON.parse(input)) {
  const dolos = new Dolos({ language: group.language });
  const report = await dolos.analyzePaths(group.paths, group.ignore ?? undefined);
  for (const pair of report.allPairs()) {
    result.push([pair.leftFile.path, pair.rightFile.path, pair.similarity]);
  }
}
process.stdout.write(JSON.stringify(result));
