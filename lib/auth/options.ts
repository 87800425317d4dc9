// How people sign in to Gatehouse (next-auth 4, email + password). Sessions are signed JWT cookies
// that carry only the person's id and their sign-in session's id: everything else — including whether
// that session was ended — is read fresh from the database on each request.
import type { NextAuthOptions } from 'next-auth';
import CredentialsProvider from 'next-auth/providers/credentials';
import { env } from '@/lib/env';
import { deriveKey } from '@/lib/crypto/seal';
import { clientAddress } from '@/lib/http/client-address';
import { safeCallbackPath } from './callback-path';
import { checkSignIn, TOO_MANY_ATTEMPTS } from './sign-in-guard';
import { endSignInSession, SESSION_LIFETIME_MS, startSignInSession } from './sign-in-sessions';

export const SESSION_MAX_AGE_SECONDS = SESSION_LIFETIME_MS / 1000;

type SignedInUser = { id: string; email: string; name: string; sessionId: string };

let cached: NextAuthOptions | undefined;

export function authOptions(): NextAuthOptions {
  if (cached) return cached;
  const { publicUrl, authSecret } = env();
  // next-auth builds its callback URLs from NEXTAUTH_URL; Gatehouse's public origin is the one truth.
  process.env.NEXTAUTH_URL = publicUrl;
  cached = {
    secret: deriveKey(authSecret, 'next-auth').toString('base64url'),
    session: { strategy: 'jwt', maxAge: SESSION_MAX_AGE_SECONDS },
    useSecureCookies: publicUrl.startsWith('https://'),
    pages: { signIn: '/login', error: '/login' },
    providers: [
      CredentialsProvider({
        name: 'Email and password',
        credentials: { email: { label: 'Email', type: 'email' }, password: { label: 'Password', type: 'password' } },
        async authorize(credentials, request) {
          const email = credentials?.email;
          const password = credentials?.password;
          if (typeof email !== 'string' || typeof password !== 'string' || !email || !password) return null;
          if (email.length > 320 || password.length > 1024) return null;
          const headers = new Headers(Object.entries(request?.headers ?? {}).map(([name, value]) => [name, String(value)] as [string, string]));
          const address = clientAddress(headers);
          const check = await checkSignIn(email, password, address);
          if (!check.ok) {
            if (check.locked) throw new Error(TOO_MANY_ATTEMPTS);
            return null;
          }
          const sessionId = await startSignInSession(check.person.id, address, headers.get('user-agent'));
          return { ...check.person, sessionId } satisfies SignedInUser;
        },
      }),
    ],
    callbacks: {
      // Every callback URL next-auth follows — from its cookie, a query or a body parameter — becomes a
      // path on this site; another origin or a value that does not parse goes home (next-auth's default
      // threw on the latter: a 500). Cookie and query are cleaned before next-auth checks them, too:
      // lib/auth/next-auth-request.ts.
      redirect({ url }) {
        return `${publicUrl}${safeCallbackPath(url, publicUrl)}`;
      },
      jwt({ token, user }) {
        if (user) {
          token.sub = user.id;
          token.sid = (user as SignedInUser).sessionId;
        }
        return token;
      },
      session({ session, token }) {
        return { ...session, personId: token.sub, sessionId: token.sid };
      },
    },
    events: {
      async signOut({ token }) {
        await endSignInSession(token?.sid, 'signed_out');
      },
    },
  };
  return cached;
}
