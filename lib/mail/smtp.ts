// Outgoing email, only when SMTP_URL and SMTP_FROM are set. A self-hosted Gatehouse has no mail server by
// default: without one, invitation and reset links are shown to the admin and written to the server log.
import nodemailer, { type Transporter } from 'nodemailer';
import { assertNoTransaction } from '@/lib/db/open-transaction';
import { env } from '@/lib/env';
import { processSingleton } from '@/lib/server/process-singleton';

export type Email = { to: string; subject: string; text: string };

export function emailConfigured(): boolean {
  return env().smtp !== null;
}

/** Sends one email. Throws when SMTP is not configured or the server refuses the message. */
export async function sendEmail(email: Email): Promise<void> {
  const smtp = env().smtp;
  if (!smtp) throw new Error('SMTP_URL and SMTP_FROM are not set');
  assertNoTransaction('sending an email'); // a slow mail server must not hold a database connection
  // Short timeouts: an admin waits for this in the console, and the link is shown to them anyway.
  const mailer = processSingleton<Transporter>('mailer', () => nodemailer.createTransport({ url: smtp.url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 }));
  await mailer.sendMail({ from: smtp.from, to: email.to, subject: email.subject, text: email.text });
}
