// oidc-provider's storage: every model (Session, Interaction, AuthorizationCode, AccessToken,
// RefreshToken, Grant, Client, RegistrationAccessToken…) in the one `oidc_models` table, with real
// indexed columns for the lookups the provider makes (grant id, uid, user code) and for expiry sweeps.
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { db } from '@/lib/db/client';
import type { Prisma } from '@/lib/generated/prisma/client';

export class PrismaAdapter implements Adapter {
  constructor(private readonly model: string) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const expiresAt = expiresIn ? new Date(Date.now() + expiresIn * 1000) : null;
    const columns = {
      payload: payload as Prisma.InputJsonValue,
      grantId: payload.grantId ?? null,
      uid: payload.uid ?? null,
      userCode: payload.userCode ?? null,
      expiresAt,
    };
    await db().oidcModel.upsert({
      where: { model_id: { model: this.model, id } },
      create: { model: this.model, id, ...columns },
      update: columns,
    });
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    return this.findWhere({ model: this.model, id });
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.findWhere({ model: this.model, uid });
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return this.findWhere({ model: this.model, userCode });
  }

  async consume(id: string): Promise<void> {
    await db().oidcModel.updateMany({ where: { model: this.model, id }, data: { consumedAt: new Date() } });
  }

  async destroy(id: string): Promise<void> {
    await db().oidcModel.deleteMany({ where: { model: this.model, id } });
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await db().oidcModel.deleteMany({ where: { model: this.model, grantId } });
  }

  private async findWhere(where: Prisma.OidcModelWhereInput): Promise<AdapterPayload | undefined> {
    const row = await db().oidcModel.findFirst({ where });
    if (!row || (row.expiresAt && row.expiresAt.getTime() <= Date.now())) return undefined;
    const payload = row.payload as AdapterPayload;
    return row.consumedAt ? { ...payload, consumed: Math.floor(row.consumedAt.getTime() / 1000) } : payload;
  }
}
