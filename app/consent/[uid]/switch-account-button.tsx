'use client';

import { signOut } from 'next-auth/react';

export function SwitchAccountButton({ uid }: { uid: string }) {
  const back = `/login?callbackUrl=${encodeURIComponent(`/consent/${uid}`)}`;
  return (
    <button type="button" onClick={() => signOut({ callbackUrl: back })} className="text-brand underline">
      Not you? Switch account
    </button>
  );
}
