import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitSentences } from '../../../src/adapters/metadata/kepub-sentences.js';

/** kepubify's reference rule (kepub/transform_test.go splitSentencesRegexp); Go's `\s` is ASCII whitespace only. */
function splitByReference(text: string): string[] {
  const ends = [...text.matchAll(/[^]*?[.!?]['"”’“…]?[\t\n\f\r ]+/g)].map((m) => m.index + m[0].length);
  if (ends.length === 0) return [text];
  const parts = ends.map((end, i) => text.slice(i === 0 ? 0 : ends[i - 1], end));
  return ends.at(-1)! < text.length ? [...parts, text.slice(ends.at(-1))] : parts;
}

describe('splitSentences (kepubify rules)', () => {
  it('splits as kepubify\'s reference regular expression does, for any text of its alphabet', () => {
    const alphabet = fc.constantFrom('a', 'Z', '1', '.', '!', '?', "'", '"', '”', '’', '“', '…', ' ', '\n', '\t', '\u00a0', 'é', '😀');
    fc.assert(fc.property(fc.array(alphabet, { maxLength: 40 }).map((a) => a.join('')), (text) => {
      expect(splitSentences(text)).toEqual(splitByReference(text));
    }), { seed: 24, numRuns: 2000 });
  });

  it.each([
    ['', ['']],
    ['    ', ['    ']],
    ['Hello', ['Hello']],
    ['Hello.', ['Hello.']],
    ['Hello. ', ['Hello. ']],
    ['Hello. World', ['Hello. ', 'World']],
    ['Hello.  World.', ['Hello.  ', 'World.']],
    ['Hello!? World.', ['Hello!? ', 'World.']],
    ['"Hello." World.', ['"Hello." ', 'World.']],
    ['Hello.” “World', ['Hello.” ', '“World']],
    ['Hello … World', ['Hello … World']],
    ['Hello…. World', ['Hello…. ', 'World']],
    ['3.14 is pi. Yes', ['3.14 is pi. ', 'Yes']],
    ['Wait.\nNext\tline. 😀 end', ['Wait.\n', 'Next\tline. ', '😀 end']],
    ['   Leading. Space', ['   Leading. ', 'Space']],
  ])('%j', (text, expected) => {
    expect(splitSentences(text)).toEqual(expected);
    expect(splitSentences(text).join('')).toBe(text);
  });
});
