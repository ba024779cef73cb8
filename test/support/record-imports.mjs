// Module hook for child processes: appends every resolved module URL to the file named in `data.log`
// (with `data.pid`, each line is `<pid> <url>`, so a cluster's processes can be told apart).
import { appendFileSync } from 'node:fs';

let log;
let prefix = '';

export function initialize(data) {
  log = data.log;
  if (data.pid) prefix = `${process.pid} `;
}

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  appendFileSync(log, `${prefix}${result.url}\n`);
  return result;
}
