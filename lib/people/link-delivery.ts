// Getting a set-password link to its person. A self-hosted Gatehouse has no mail server by default, so
// the admin who made the link passes it on: it is returned to them once, and written to the server log
// for the operator. With SMTP_URL and SMTP_FROM set it is emailed instead, and the log line leaves the
// link out (a log is read by more people than the one it is for).
import { emailConfigured, sendEmail } from '@/lib/mail/smtp';
import type { IssuedLink } from './password-links';

export type LinkRecipient = { name: string; email: string };
export type LinkContext = { orgName: string; byName: string };

/** Returns whether the link was emailed. Never throws: the admin has the link either way. */
export async function deliverPasswordLink(link: IssuedLink, to: LinkRecipient, context: LinkContext): Promise<boolean> {
  const what = link.purpose === 'invite' ? 'invitation' : 'password reset link';
  const expires = link.expiresAt.toISOString();
  if (emailConfigured()) {
    try {
      await sendEmail({ to: to.email, ...message(link, to, context) });
      console.info(`gatehouse: emailed the ${what} for ${context.orgName} to ${to.name} <${to.email}> (expires ${expires})`);
      return true;
    } catch (error) {
      console.error(`gatehouse: could not email the ${what} to ${to.email}: ${(error as Error).message}`);
    }
  }
  console.info(`gatehouse: ${what} for ${to.name} <${to.email}> in ${context.orgName}, made by ${context.byName}: ${link.url} (one use, expires ${expires})`);
  return false;
}

function message(link: IssuedLink, to: LinkRecipient, context: LinkContext): { subject: string; text: string } {
  const expires = `${link.expiresAt.toISOString().replace('T', ' ').slice(0, 16)} UTC`;
  // Names go in the body only: the subject is a header, and names are typed by people.
  const opening =
    link.purpose === 'invite'
      ? `${context.byName} invited you to ${context.orgName} on Gatehouse. Choose a password to sign in:`
      : `${context.byName}, an admin of ${context.orgName}, made a link for you to choose a new Gatehouse password:`;
  return {
    subject: link.purpose === 'invite' ? 'Your Gatehouse invitation' : 'Reset your Gatehouse password',
    text: [
      `Hello ${to.name},`,
      '',
      opening,
      '',
      link.url,
      '',
      `The link works once and expires on ${expires}.`,
      ...(link.purpose === 'reset' ? ['Setting a new password signs you out of every browser.'] : []),
      'If you did not expect this email, you can ignore it.',
    ].join('\n'),
  };
}
