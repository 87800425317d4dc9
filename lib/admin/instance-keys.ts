// The signing and cookie keys, for instance admins: what signs now, what is still published, and a
// rotation that every instance takes up within KEY_RELOAD_SECONDS, without a restart.
import { env } from '@/lib/env';
import { keyOverview, rotateKeys, type KeyOverview } from '@/lib/oauth/keys';
import { reloadProviderKeys } from '@/lib/oauth/provider';
import type { InstanceAdmin } from './access';
import { invalid } from './errors';

export type KeyStatus = KeyOverview & { reloadSeconds: number; signingSince: Date | null };

export async function keyStatus(): Promise<KeyStatus> {
  const overview = await keyOverview();
  const active = overview.keys.filter((key) => key.use === 'signing' && !key.retiredAt && key.createdAt);
  const signingSince = active.reduce<Date | null>((newest, key) => (!newest || key.createdAt! > newest ? key.createdAt : newest), null);
  return { ...overview, reloadSeconds: env().keyReloadMs / 1000, signingSince };
}

/** New keys for every instance; this one switches at once, the others within the reload interval. */
export async function rotateKeysNow(admin: InstanceAdmin, ip: string): Promise<string[]> {
  if (env().signingKeys) throw invalid('The keys come from OAUTH_SIGNING_KEYS and OAUTH_COOKIE_KEYS: rotate them there and restart.');
  const ids = await rotateKeys({ actorPersonId: admin.personId, ip, via: 'console' });
  // The rotation is committed: should this instance fail to rebuild now, its next periodic check retries.
  await reloadProviderKeys().catch((error) => console.error('gatehouse: key reload after rotation failed', (error as Error).message));
  return ids;
}
