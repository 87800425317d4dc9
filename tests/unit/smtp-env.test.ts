// SMTP_URL and SMTP_FROM: optional, both or neither, validated at start-up like every other variable.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseEnv } from '@/lib/env';

const base = () => ({ DATA_DIR: mkdtempSync(join(tmpdir(), 'gatehouse-smtp-env-')) });

function problems(source: Record<string, string>): string[] {
  try {
    parseEnv(source);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('SMTP configuration', () => {
  it('is off by default: links are shown to the admin and logged', () => {
    expect(parseEnv(base()).smtp).toBeNull();
  });

  it('accepts an smtp:// or smtps:// URL with a sender', () => {
    const from = 'Gatehouse <gatehouse@example.com>';
    expect(parseEnv({ ...base(), SMTP_URL: 'smtp://user:pa%40ss@mail.example.com:587', SMTP_FROM: from }).smtp).toEqual({
      url: 'smtp://user:pa%40ss@mail.example.com:587',
      from,
    });
    expect(parseEnv({ ...base(), SMTP_URL: 'smtps://mail.example.com', SMTP_FROM: 'gatehouse@example.com' }).smtp?.from).toBe('gatehouse@example.com');
  });

  it.each([
    ['SMTP_URL', 'mail.example.com:587'],
    ['SMTP_URL', 'https://mail.example.com'],
    ['SMTP_FROM', 'not an address'],
    ['SMTP_FROM', 'Gatehouse <gatehouse@example.com>\r\nBcc: someone@example.com'],
  ])('refuses %s=%s with a message naming the variable', (name, value) => {
    const other: Record<string, string> = name === 'SMTP_URL' ? { SMTP_FROM: 'gatehouse@example.com' } : { SMTP_URL: 'smtp://mail.example.com' };
    expect(problems({ ...base(), ...other, [name]: value }).some((problem) => problem.startsWith(`${name} `))).toBe(true);
  });

  it('needs both variables, and never repeats the password in its message', () => {
    const found = problems({ ...base(), SMTP_URL: 'smtp://user:secret-password@mail.example.com' });
    expect(found).toEqual(['SMTP_URL and SMTP_FROM must be given together']);
    expect(problems({ ...base(), SMTP_FROM: 'gatehouse@example.com' })).toEqual(['SMTP_URL and SMTP_FROM must be given together']);
    expect(problems({ ...base(), SMTP_URL: 'ftp://user:secret-password@x', SMTP_FROM: 'a@b.c' }).join('\n')).not.toContain('secret-password');
  });
});
