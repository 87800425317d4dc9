// Upstream text as an instance admin must see it (docs/connectors.md, Reviewing held tools): what a model
// reads of a tool's description includes characters a browser shows as nothing or that reorder what is
// shown — bidi overrides (Trojan Source, CVE-2021-42574), zero-width characters, tag characters, other
// controls. Each is written out as ⟨U+XXXX⟩ so that a review shows everything the model would get. Pure.

/**
 * Controls (but newline and tab, shown as they are), format characters (bidi, zero-width, tags, soft
 * hyphen), private-use and unassigned code points, line and paragraph separators, what Unicode says to
 * ignore when shown (variation selectors, the combining grapheme joiner, the Hangul fillers), spaces other
 * than the plain one, and the blank Braille pattern.
 */
const HIDDEN = /[^\P{Cc}\n\t]|[\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]|[\u00a0\u1680\u2000-\u200a\u202f\u205f\u2800\u3000]/gu;

export type TextPart = { text: string; hidden: boolean };

/** `⟨U+202E⟩` for one hidden character. */
export function codePointLabel(character: string): string {
  return `⟨U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟩`;
}

/** The text in parts: as it is, and each hidden character as its own part, labelled. */
export function visibleParts(text: string): TextPart[] {
  const parts: TextPart[] = [];
  let last = 0;
  for (const match of text.matchAll(HIDDEN)) {
    if (match.index > last) parts.push({ text: text.slice(last, match.index), hidden: false });
    parts.push({ text: codePointLabel(match[0]), hidden: true });
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push({ text: text.slice(last), hidden: false });
  return parts;
}
