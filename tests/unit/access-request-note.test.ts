// The note of an access request (lib/apps/requests.ts parseNote): admins read it next to the app's name,
// so it follows the rule of client metadata people are shown — no invisible, bidirectional or control
// characters — except line breaks, which a textarea sends; and it is bounded.
import { describe, expect, it } from 'vitest';
import { NOTE_MAX_LENGTH, parseNote } from '@/lib/apps/requests';

describe('an access request note', () => {
  it('keeps plain text, with line breaks stored as LF, and treats blank as no note', () => {
    expect(parseNote('  For the weekly reports\r\nand the monthly ones  ')).toEqual({ ok: true, note: 'For the weekly reports\nand the monthly ones' });
    expect(parseNote('Für die Berichte — 報告のため')).toEqual({ ok: true, note: 'Für die Berichte — 報告のため' });
    expect(parseNote(' \r\n ')).toEqual({ ok: true, note: null });
    expect(parseNote('x'.repeat(NOTE_MAX_LENGTH))).toMatchObject({ ok: true });
  });

  it('refuses what cannot be stored or reads as something else, naming the character', () => {
    expect(parseNote('bad\u0000note')).toMatchObject({ ok: false, refusal: 'note_characters' });
    expect(parseNote('\uD800 broken')).toMatchObject({ ok: false, refusal: 'note_characters' });
    expect(parseNote('Trusted\u202Eeton')).toEqual({ ok: false, refusal: 'note_characters', message: expect.stringContaining('U+202E') });
    for (const character of ['\u200B', '\u2066', '\u061C', '\u0007', '\t', '\u2028', '\u00AD']) expect(parseNote(`a${character}b`)).toMatchObject({ ok: false, refusal: 'note_characters' });
  });

  it('refuses a note longer than 500 characters', () => {
    expect(parseNote('x'.repeat(NOTE_MAX_LENGTH + 1))).toMatchObject({ ok: false, refusal: 'note_too_long' });
    expect(parseNote('x'.repeat(10 * 1024))).toMatchObject({ ok: false, refusal: 'note_too_long' });
  });
});
