/**
 * Splits text into the fragments kepubify wraps in koboSpans: a sentence runs to `.`, `!` or `?`
 * (repeated), optionally followed by one closing quote or ellipsis, and takes the whitespace after it.
 * A port of kepubify's state machine (kepub/transform.go splitSentences), so spans fall where its do.
 */
export function splitSentences(text: string): string[] {
  const sentences: string[] = [];
  let start = 0;
  let state: 'default' | 'punct' | 'extra' | 'space' = 'default';
  for (let i = 0; i < text.length; ) {
    const code = text.codePointAt(i)!;
    const width = code > 0xffff ? 2 : 1;
    const input = classify(code);
    if (state === 'space' && input !== 'space') {
      sentences.push(text.slice(start, i));
      start = i;
    }
    state = next(state, input);
    i += width;
  }
  if (start < text.length || sentences.length === 0) sentences.push(text.slice(start));
  return sentences;
}

type Input = 'punct' | 'extra' | 'space' | 'any';

function classify(code: number): Input {
  switch (code) {
    case 0x2e: case 0x21: case 0x3f:
      return 'punct';
    case 0x27: case 0x22: case 0x201d: case 0x2019: case 0x201c: case 0x2026:
      return 'extra';
    case 0x09: case 0x0a: case 0x0c: case 0x0d: case 0x20:
      return 'space';
    default:
      return 'any';
  }
}

function next(state: 'default' | 'punct' | 'extra' | 'space', input: Input): 'default' | 'punct' | 'extra' | 'space' {
  if (input === 'punct') return 'punct';
  if (state === 'default') return 'default';
  if (input === 'space') return 'space';
  if (input === 'extra') return state === 'punct' ? 'extra' : 'default';
  return 'default';
}

/** Whether the text is only (Unicode) whitespace. */
export function isSpace(text: string): boolean {
  return /^\s*$/u.test(text);
}
