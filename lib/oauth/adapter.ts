// oidc-provider's storage: every model (Session, Interaction, AuthorizationCode, AccessToken,
// RefreshToken, Grant, Client, RegistrationAccessToken…) in the one `oidc_models` table, with real
// indexed columns for the lookups the provider makes (grant id, uid, user code) and for expiry sweeps.
//
// Credentials are never stored: a model whose id *is* a credential (a token value, a session cookie, a
// registration access token) is stored under sha256(id), and the id is removed from the stored payload
// (`jti`) and put back on read from the value the caller presented. A Client's secret is stored as its
// hash too (see client-secrets.ts). A dump of the table therefore holds nothing anyone could present.
import { createHash } from 'node:crypto';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { db } from '@/lib/db/client';
import type { Prisma } from '@/lib/generated/prisma/client';
import { hashClientSecretInPayload } from './client-secrets';
import { isDisabled } from './clients';
import { lockLiveGrant } from '@/lib/grants/locks';
import { orUnavailable } from './unavailable';

/** Models whose id is a bearer credential. DeviceCode stays plain: it is looked up by user code. */
const CREDENTIAL_MODELS = new Set([
  'AccessToken',
  'RefreshToken',
  'AuthorizationCode',
  'ClientCredentials',
  'Session',
  'Interaction',
  'RegistrationAccessToken',
  'PushedAuthorizationRequest',
  'BackchannelAuthenticationRequest',
  'ReplayDetection',
]);

export function storageId(model: string, id: string): string {
  return CREDENTIAL_MODELS.has(model) ? createHash('sha256').update(id).digest('base64url') : id;
}

export class PrismaAdapter implements Adapter {
  private readonly hashed: boolean;

  constructor(private readonly model: string) {
    this.hashed = CREDENTIAL_MODELS.has(model);
  }

  upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    return orUnavailable(() => this.write(id, payload, expiresIn));
  }

  find(id: string): Promise<AdapterPayload | undefined> {
    return orUnavailable(() => this.read(id));
  }

  findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return orUnavailable(() => this.findWhere({ model: this.model, uid }));
  }

  findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return orUnavailable(() => this.findWhere({ model: this.model, userCode }));
  }

  consume(id: string): Promise<void> {
    return orUnavailable(async () => {
      await db().oidcModel.updateMany({
        where: { model: this.model, id: storageId(this.model, id) },
        data: { consumedAt: new Date() },
      });
    });
  }

  destroy(id: string): Promise<void> {
    return orUnavailable(async () => {
      await db().oidcModel.deleteMany({ where: { model: this.model, id: storageId(this.model, id) } });
    });
  }

  revokeByGrantId(grantId: string): Promise<void> {
    return orUnavailable(async () => {
      await db().oidcModel.deleteMany({ where: { model: this.model, grantId } });
    });
  }

  private async write(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const expiresAt = expiresIn ? new Date(Date.now() + expiresIn * 1000) : null;
    const stored = this.toStored(payload);
    const columns = {
      payload: stored as Prisma.InputJsonValue,
      grantId: payload.grantId ?? null,
      uid: payload.uid ?? null,
      userCode: payload.userCode ?? null,
      expiresAt,
    };
    const key = storageId(this.model, id);
    await db().oidcModel.upsert({
      where: { model_id: { model: this.model, id: key } },
      create: { model: this.model, id: key, ...columns },
      update: columns,
    });
  }

  private async read(id: string): Promise<AdapterPayload | undefined> {
    // A revoked grant is gone for the provider, and the row lock orders this read with a revocation
    // running at the same time (lib/grants/revoke.ts): no token is issued for a grant once its
    // revocation commits.
    if (this.model === 'Grant' && !(await lockLiveGrant(id))) return undefined;
    // A client an instance admin disabled is unknown to the provider: invalid_client everywhere.
    if (this.model === 'Client' && (await isDisabled(id))) return undefined;
    const payload = await this.findWhere({ model: this.model, id: storageId(this.model, id) });
    // Put back the value the caller holds: the provider checks it against the cookie or token presented.
    return payload && this.hashed ? { ...payload, jti: id } : payload;
  }

  private toStored(payload: AdapterPayload): AdapterPayload {
    if (this.model === 'Client') return hashClientSecretInPayload(payload);
    if (!this.hashed) return payload;
    const { jti: _value, ...rest } = payload;
    if (this.model === 'Interaction' && rest.session) {
      // The interaction remembers the browser session it started in, cookie value included.
      const { cookie: _cookie, ...session } = rest.session as Record<string, unknown>;
      return { ...rest, session } as AdapterPayload;
    }
    return rest;
  }

  private async findWhere(where: Prisma.OidcModelWhereInput): Promise<AdapterPayload | undefined> {
    const row = await db().oidcModel.findFirst({ where });
    if (!row || (row.expiresAt && row.expiresAt.getTime() <= Date.now())) return undefined;
    const payload = row.payload as AdapterPayload;
    return row.consumedAt ? { ...payload, consumed: Math.floor(row.consumedAt.getTime() / 1000) } : payload;
  }
}
