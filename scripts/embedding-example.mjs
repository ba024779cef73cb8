// Prints the embedding example of docs/embedding.md (its first ```ts block), so CI runs exactly what the doc shows.
import { readFileSync } from 'node:fs';

const doc = readFileSync(new URL('../docs/embedding.md', import.meta.url), 'utf8');
const example = /^```ts\n([\s\S]*?)^```$/m.exec(doc)?.[1];
if (!example) throw new Error('docs/embedding.md: no ```ts block');
process.stdout.write(example);
