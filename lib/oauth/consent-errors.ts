// What a person sees when the consent form cannot be taken. Two kinds:
// - a choice to correct (no scope ticked, no organization picked): the consent screen again, with a
//   message (`/consent/<uid>?error=<code>`). The code is read from the URL, which anyone can write: an
//   unknown one — `__proto__` and every other name objects inherit included — shows no message;
// - a form that is refused outright (another origin, an expired token, too large): a small HTML page,
//   `consentErrorPage`, with the status that says why. It answers a browser's form post, so it is a page,
//   not OAuth JSON (which is for clients: lib/oauth/errors.ts) and not bare text.
import { ownValue } from '@/lib/own-keys';

const MESSAGES = {
  scope: 'Tick at least one of the boxes below to allow access.',
  org: 'Pick an organization where this app may be connected.',
} as const;

export type ConsentErrorCode = keyof typeof MESSAGES;

export function consentErrorMessage(code: string | null): string | null {
  return code ? (ownValue(MESSAGES, code) ?? null) : null;
}

/** A refused consent form, as the page the browser shows in place of the consent screen. */
export function consentErrorPage(status: 403 | 413, message: string): Response {
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Gatehouse: this request was not accepted</title>
</head>
<body>
<main>
<h1>This request was not accepted</h1>
<p>${escapeHtml(message)}</p>
</main>
</body>
</html>
`;
  return new Response(html, { status, headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' } });
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
