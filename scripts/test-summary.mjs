// Prints vitest's JSON report as one closing line ("N passed, N failed, N skipped") and lists
// every skipped test with its name (each skip states its reason in its name).
import { readFileSync } from 'node:fs';

const report = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const tests = report.testResults.flatMap((file) => file.assertionResults.map((t) => ({ ...t, file: file.name })));
const count = (status) => tests.filter((t) => t.status === status).length;
const skipped = tests.filter((t) => t.status === 'skipped' || t.status === 'pending' || t.status === 'todo');
if (skipped.length > 0) {
  console.log('\nSkipped tests (not counted as passed):');
  for (const t of skipped) console.log(`  - ${t.fullName}`);
}
const failedFiles = report.testResults.filter((f) => f.status === 'failed' && f.assertionResults.length === 0).length;
console.log(`\n${count('passed')} passed, ${count('failed') + failedFiles} failed, ${skipped.length} skipped`);
process.exit(count('failed') + failedFiles > 0 || count('passed') === 0 ? 1 : 0);
