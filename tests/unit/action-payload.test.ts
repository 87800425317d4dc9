import { describe, expect, it } from 'vitest';
import { boundArgumentPrefixes, partsFromForm, refuseActionPayload } from '../../lib/server/action-payload';

const plain = (text: string) => refuseActionPayload([{ id: 0, text }], { formData: false, root: 'arguments' });
const ARGUMENTS = { formData: false, root: 'arguments' } as const;
const DESCRIPTOR = { formData: false, root: 'descriptor' } as const;

describe('server-action payload check', () => {
  it("admits what Gatehouse's pages send: plain JSON, escaped dollars, the client's special values", () => {
    expect(plain('["acme",{"tool":"whoami","restricted":true}]')).toBeNull();
    expect(plain('["acme",{"name":"$$money","note":"$$0"}]')).toBeNull();
    expect(plain('["$undefined","$NaN","$Infinity","$-Infinity","$-0","$D2026-11-30T00:00:00.000Z","$n-12345"]')).toBeNull();
    expect(plain('[]')).toBeNull();
  });

  it('admits a multipart form call (FormData reference) and the bound-arguments promise of a form sent before its script', () => {
    expect(refuseActionPayload([{ id: 0, text: '[null,"$K1"]' }], { formData: true, root: 'arguments' })).toBeNull();
    expect(
      refuseActionPayload(
        [
          { id: 0, text: '{"id":"7f00","bound":"$@1"}' },
          { id: 1, text: '[null]' },
        ],
        DESCRIPTOR,
      ),
    ).toBeNull();
    expect(refuseActionPayload([{ id: 0, text: '{"id":"7f00","bound":null}' }], DESCRIPTOR)).toBeNull();
    expect(
      refuseActionPayload(
        [
          { id: 0, text: '["$1a"]' },
          { id: 26, text: '{}' },
        ],
        ARGUMENTS,
      ),
    ).toBeNull();
  });

  it.each([
    ['["$0"]', 'refers back to part 0'],
    ['["$@0"]', 'refers back to part 0'],
    ['["acme",["$1"]]', 'refers to part 1, which was not sent'],
    ['["$Q0"]', 'never sends'],
    ['["$W0"]', 'never sends'],
    ['["$h0"]', 'never sends'],
    ['["$T"]', 'never sends'],
    ['["$F0"]', 'never sends'],
    ['["$i0"]', 'never sends'],
    ['["$A0"]', 'never sends'],
    ['["$K1"]', 'never sends'],
    ['["$0:a:b"]', 'never sends'],
    ['["$n1e5"]', 'never sends'],
    [`["$n${'9'.repeat(301)}"]`, 'never sends'],
    ['{"a":', 'not JSON'],
    ['-8', 'not a list'],
    ['"text"', 'not a list'],
    ['{"0":"acme"}', 'not a list'],
    ['null', 'not a list'],
    [`[${Array(1001).fill(0).join(',')}]`, 'more than 1000 arguments'],
    ['', 'not JSON'],
  ])('refuses %s', (text, reason) => {
    expect(plain(text)).toContain(reason);
  });

  it('refuses references between parts that run backwards or in a cycle, and a payload without its root', () => {
    const cycle = [
      { id: 0, text: '["$1"]' },
      { id: 1, text: '["$@1"]' },
    ];
    expect(refuseActionPayload(cycle, ARGUMENTS)).toContain('refers back to part 1');
    expect(
      refuseActionPayload(
        [
          { id: 0, text: '["$2"]' },
          { id: 2, text: '["$0"]' },
        ],
        ARGUMENTS,
      ),
    ).toContain('refers back to part 0');
    expect(refuseActionPayload([{ id: 1, text: '[]' }], ARGUMENTS)).toContain('no root part');
    expect(refuseActionPayload([{ id: 0, text: '{"id":"7f","bound":"$@0"}' }], DESCRIPTOR)).toContain('refers back to part 0');
    expect(refuseActionPayload([{ id: 0, text: '["7f"]' }], DESCRIPTOR)).toContain('descriptor is not an object');
  });

  it('refuses bound arguments that are not a list (the framework applies them to the action: a TypeError, a 500)', () => {
    for (const bound of ['null', '5', '"x"', '{}']) {
      expect(
        refuseActionPayload(
          [
            { id: 0, text: '{"id":"7f","bound":"$@1"}' },
            { id: 1, text: bound },
          ],
          DESCRIPTOR,
        ),
        bound,
      ).toBe('the bound arguments are not a list');
    }
    for (const bound of ['5', '"$1"', '[]', '{}']) {
      expect(
        refuseActionPayload(
          [
            { id: 0, text: `{"id":"7f","bound":${bound}}` },
            { id: 1, text: '[]' },
          ],
          DESCRIPTOR,
        ),
        bound,
      ).toBe('the bound arguments are not a list');
    }
  });

  it('refuses nesting deeper than the decoder should walk, without overflowing its own stack', () => {
    expect(plain(`${'['.repeat(33)}${']'.repeat(33)}`)).toContain('nests deeper');
    expect(plain(`[${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}]`)).toContain('nests deeper');
    expect(plain(`${'['.repeat(32)}${']'.repeat(32)}`)).toBeNull();
  });

  it('reads the numbered parts of a multipart body, and refuses files or repeats in their place', () => {
    const form = new FormData();
    form.append('0', '[null,"$K1"]');
    form.append('1_password', 'secret');
    form.append('$ACTION_REF_1', '');
    form.append('$ACTION_1:0', '{"id":"7f","bound":"$@1"}');
    form.append('$ACTION_1:1', '[null]');
    expect(partsFromForm(form, '')).toEqual([{ id: 0, text: '[null,"$K1"]' }]);
    expect(boundArgumentPrefixes(form)).toEqual(['$ACTION_1:']);
    expect(partsFromForm(form, '$ACTION_1:')).toEqual([
      { id: 0, text: '{"id":"7f","bound":"$@1"}' },
      { id: 1, text: '[null]' },
    ]);

    form.append('0', '[]');
    expect(partsFromForm(form, '')).toBe('a part is sent twice');
    const withFile = new FormData();
    withFile.append('0', new Blob(['[]']));
    expect(partsFromForm(withFile, '')).toBe('part 0 is a file, not JSON');
  });
});
