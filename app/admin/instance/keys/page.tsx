import type { Metadata } from 'next';
import { exactTime, relativeTime } from '@/app/components/relative-time';
import { keyStatus } from '@/lib/admin/instance-keys';
import { Badge, DataTable, PageHeading } from '../../components';
import { instancePage } from '../../page-access';
import { RotateKeysButton } from './rotate-keys-button';

export const metadata: Metadata = { title: 'Keys · Instance admin' };

export default async function InstanceKeysPage() {
  await instancePage('/keys');
  const status = await keyStatus();
  const fromEnvironment = status.source === 'environment';
  return (
    <div className="space-y-6">
      <PageHeading title="Keys" actions={fromEnvironment ? undefined : <RotateKeysButton reloadSeconds={status.reloadSeconds} />}>
        Signing keys sign ID tokens and are published at{' '}
        <a className="text-brand underline" href="/oauth/jwks">
          /oauth/jwks
        </a>
        ; cookie keys sign the authorization server’s cookies.
      </PageHeading>
      <section aria-labelledby="rotation" className="space-y-2 rounded-lg border border-slate-200 bg-white p-4 text-sm shadow-sm">
        <h2 id="rotation" className="text-base font-semibold">
          Rotation
        </h2>
        {fromEnvironment ? (
          <p>The keys come from OAUTH_SIGNING_KEYS and OAUTH_COOKIE_KEYS: rotate them there and restart Gatehouse.</p>
        ) : (
          <>
            <p>
              {status.signingSince ? (
                <>
                  The current signing keys were created <span title={exactTime(status.signingSince)}>{relativeTime(status.signingSince)}</span>.
                </>
              ) : (
                'No signing key is stored yet: one is created when the authorization server first starts.'
              )}
            </p>
            <p>
              Rotating adds new signing and cookie keys and retires the current ones. New tokens are signed with the new keys; a retired signing key stays published, and a retired cookie key keeps
              verifying, for a day, so nothing signed before the rotation stops working. Every instance picks the new keys up within {status.reloadSeconds} seconds (KEY_RELOAD_SECONDS) without a
              restart. From a terminal: <code className="font-mono">npm run keys:rotate</code>.
            </p>
          </>
        )}
      </section>
      <DataTable label="Keys" head={['Key', 'Use', 'Algorithm', 'Created', 'Retired', 'State']}>
        {status.keys.map((key) => (
          <tr key={key.id}>
            <td className="px-3 py-2 font-mono text-xs">{key.id}</td>
            <td className="px-3 py-2">{key.use === 'signing' ? 'Signing' : 'Cookies'}</td>
            <td className="px-3 py-2">{key.algorithm}</td>
            <td className="px-3 py-2 whitespace-nowrap" title={key.createdAt ? exactTime(key.createdAt) : undefined}>
              {key.createdAt ? relativeTime(key.createdAt) : '—'}
            </td>
            <td className="px-3 py-2 whitespace-nowrap" title={key.retiredAt ? exactTime(key.retiredAt) : undefined}>
              {key.retiredAt ? relativeTime(key.retiredAt) : '—'}
            </td>
            <td className="px-3 py-2">
              {!key.retiredAt ? (
                <Badge tone="good">{key.use === 'signing' ? 'Signing · published' : 'Signing cookies'}</Badge>
              ) : key.stillUsed ? (
                <span title={key.droppedAt ? `Until ${exactTime(key.droppedAt)}` : undefined}>
                  <Badge tone="warn">{key.use === 'signing' ? 'Retired · still published' : 'Retired · still verifying'}</Badge>
                </span>
              ) : (
                <Badge>{key.use === 'signing' ? 'No longer published' : 'No longer used'}</Badge>
              )}
            </td>
          </tr>
        ))}
      </DataTable>
    </div>
  );
}
