// How people sign in to Gatehouse (next-auth 4, email + password). Sessions are signed JWT cookies
// that carry only the person's id: everything else is read fresh from the database on each request.
import type { NextAuthOptions } from 'next-auth';
import CredentialsProvider from 'next-auth/providers/credentials';
import { env } from '@/lib/env';
import { deriveKey } from '@/lib/crypto/seal';
import { authenticate } from '@/lib/people/accounts';
import { clientAddress } from '@/lib/http/client-address';
import { mayAttemptSignIn, recordFailedSignIn, TOO_MANY_ATTEMPTS } from './sign-in-throttle';

export const SESSION_MAX_AGE_SECONDS = 12 * 60 * 60;

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
          if (!mayAttemptSignIn(email, address)) throw new Error(TOO_MANY_ATTEMPTS);
          const person = await authenticate(email, password);
          if (!person) recordFailedSignIn(email, address);
          return person;
        },
      }),
    ],
    callbacks: {
      jwt({ token, user }) {
        if (user) token.sub = user.id;
        return token;
      },
      session({ session, token }) {
        return { ...session, personId: token.sub };
      },
    },
  };
  return cached;
}
