// The proof that the hand-written SQL in prisma/migrations matches prisma/schema.prisma: every model is
// written and read back through Prisma Client, on each database, with every column set.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES } from '../helpers/databases';
import { openTestDatabase, type TestDatabase } from '../helpers/prisma';

describe.each(DATABASES)('the schema on the %s database', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase(kind);
  });
  afterAll(async () => database?.close());

  it('stores and returns every model with every column', async () => {
    const prisma = database.prisma;
    const at = new Date('2026-11-30T10:00:00.123Z');

    const person = await prisma.person.create({
      data: {
        email: 'ada@example.test',
        name: 'Ada',
        passwordHash: '$2b$12$x',
        isInstanceAdmin: true,
        disabledAt: at,
        failedSignIns: 3,
        lockedUntil: at,
      },
    });
    const org = await prisma.organization.create({
      data: { slug: 'analytical', name: 'Analytical Engines', planStatus: 'inactive', appPolicy: 'approved' },
    });
    const membership = await prisma.membership.create({
      data: { personId: person.id, orgId: org.id, role: 'admin', status: 'deactivated' },
    });
    const app = await prisma.app.create({
      data: {
        key: 'document:https://app.example/client.json',
        kind: 'metadata_document',
        displayName: 'Example',
        evidence: { kind: 'metadata_document', documentUrl: 'https://app.example/client.json' },
        marks: ['host:app.example', 'scheme:com.example.app'],
        firstSeenAt: at,
        lastSeenAt: at,
        registrationCount: 1,
        blockedAt: at,
        blockedById: person.id,
      },
    });
    const client = await prisma.oAuthClient.create({
      data: {
        clientId: 'https://app.example/client.json',
        registration: 'metadata_document',
        name: 'Example',
        hostname: 'app.example',
        registeredIp: '203.0.113.9',
        firstSeenAt: at,
        lastUsedAt: at,
        disabledAt: at,
        disabledById: person.id,
        ownerOrgId: org.id,
        appId: app.id,
      },
    });
    const signInSession = await prisma.signInSession.create({
      data: {
        id: 'session-1',
        personId: person.id,
        ip: '203.0.113.9',
        userAgent: 'Mozilla/5.0',
        createdAt: at,
        lastSeenAt: at,
        expiresAt: at,
        endedAt: at,
        endReason: 'signed_out',
      },
    });
    const link = await prisma.passwordLink.create({
      data: {
        tokenHash: 'hash-of-link',
        personId: person.id,
        purpose: 'invite',
        orgId: org.id,
        createdById: person.id,
        createdAt: at,
        expiresAt: at,
        usedAt: at,
      },
    });
    const decision = await prisma.orgClientDecision.create({
      data: { orgId: org.id, clientId: client.clientId, decision: 'blocked', decidedById: person.id, decidedAt: at },
    });
    const appDecision = await prisma.orgAppDecision.create({
      data: { orgId: org.id, appId: app.id, decision: 'approved', decidedById: person.id, decidedAt: at },
    });
    const accessRequest = await prisma.accessRequest.create({
      data: {
        orgId: org.id,
        appId: app.id,
        personId: person.id,
        clientId: client.clientId,
        note: 'For the reports',
        status: 'declined',
        createdAt: at,
        decidedById: person.id,
        decidedAt: at,
        expiresAt: at,
      },
    });
    const grant = await prisma.grant.create({
      data: {
        id: 'grant-1',
        personId: person.id,
        orgId: org.id,
        clientId: client.clientId,
        scopes: ['mcp:read', 'mcp:write'],
        createdAt: at,
        lastUsedAt: at,
        revokedAt: at,
        revokedById: person.id,
        revokeReason: 'person',
      },
    });
    const oidc = await prisma.oidcModel.create({
      data: {
        model: 'AccessToken',
        id: 'hash-of-token',
        payload: { accountId: person.id, scope: 'mcp:read', nested: { list: [1, 2] } },
        grantId: 'grant-1',
        uid: 'uid-1',
        userCode: 'ABCD-EFGH',
        expiresAt: at,
        consumedAt: at,
      },
    });
    const key = await prisma.keyMaterial.create({
      data: { id: 'key-1', use: 'signing', algorithm: 'RS256', encrypted: 'sealed', createdAt: at, retiredAt: at },
    });
    const connector = await prisma.connector.create({
      data: {
        slug: 'notes',
        name: 'Notes',
        description: 'The notes server',
        url: 'https://notes.internal/mcp',
        timeoutMs: 5000,
        status: 'disabled',
        credentialSealed: 'sealed',
        problems: [{ name: 'bad name', problem: 'x' }],
        lastRefreshedAt: at,
        lastRefreshError: 'down',
        createdAt: at,
      },
    });
    // The other kind of credential: OAuth client credentials, the secret sealed.
    const tokenConnector = await prisma.connector.create({
      data: {
        slug: 'tickets',
        name: 'Tickets',
        url: 'https://tickets.internal/mcp',
        tokenUrl: 'https://auth.internal/oauth/token',
        tokenClientId: 'gatehouse',
        tokenClientSecretSealed: 'sealed-secret',
        tokenClientAuth: 'client_secret_post',
        tokenScope: 'tickets:read',
        tokenResource: 'https://tickets.internal/mcp',
      },
    });
    const connectorTool = await prisma.connectorTool.create({
      data: {
        connectorId: connector.id,
        upstreamName: 'search',
        exposedName: 'notes__search',
        status: 'held',
        holdReason: 'changed',
        pinned: { name: 'search' },
        pinnedHash: 'a'.repeat(64),
        held: { name: 'search', description: 'new' },
        heldHash: 'b'.repeat(64),
        firstSeenAt: at,
      },
    });
    const orgConnector = await prisma.orgConnector.create({ data: { orgId: org.id, connectorId: connector.id, enabledAt: at } });
    const restriction = await prisma.toolRestriction.create({
      data: { orgId: org.id, toolName: 'list_members', createdById: person.id, createdAt: at },
    });
    const audit = await prisma.auditEvent.create({
      data: {
        type: 'grant.revoked',
        orgId: org.id,
        actorPersonId: person.id,
        clientId: client.clientId,
        grantId: grant.id,
        ip: '203.0.113.9',
        data: { reason: 'person' },
        createdAt: at,
      },
    });
    const call = await prisma.mcpCall.create({
      data: {
        at,
        personId: person.id,
        orgId: org.id,
        clientId: client.clientId,
        grantId: grant.id,
        method: 'tools/call',
        toolName: 'whoami',
        outcome: 'ok',
        httpStatus: 200,
        latencyMs: 12,
        protocolVersion: '2025-11-25',
        traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      },
    });

    expect(await prisma.person.findUniqueOrThrow({ where: { email: 'ada@example.test' } })).toEqual(person);
    expect(await prisma.organization.findUniqueOrThrow({ where: { slug: 'analytical' } })).toEqual(org);
    expect(await prisma.membership.findUniqueOrThrow({ where: { personId_orgId: { personId: person.id, orgId: org.id } } })).toEqual(membership);
    expect(await prisma.oAuthClient.findUniqueOrThrow({ where: { clientId: client.clientId } })).toEqual(client);
    expect(await prisma.app.findUniqueOrThrow({ where: { key: app.key } })).toEqual(app);
    expect(await prisma.app.count({ where: { marks: { hasSome: ['host:app.example', 'host:other.example'] } } })).toBe(1);
    expect((await prisma.app.findUniqueOrThrow({ where: { id: app.id }, include: { clients: true } })).clients.map((c) => c.clientId)).toEqual([client.clientId]);
    expect(
      await prisma.orgClientDecision.findUniqueOrThrow({
        where: { orgId_clientId: { orgId: org.id, clientId: client.clientId } },
      }),
    ).toEqual(decision);
    expect(await prisma.orgAppDecision.findUniqueOrThrow({ where: { orgId_appId: { orgId: org.id, appId: app.id } } })).toEqual(appDecision);
    expect(await prisma.app.count({ where: { blockedAt: { not: null }, orgDecisions: { some: { orgId: org.id } } } })).toBe(1);
    expect(await prisma.accessRequest.findUniqueOrThrow({ where: { orgId_appId_personId: { orgId: org.id, appId: app.id, personId: person.id } } })).toEqual(accessRequest);
    expect(await prisma.accessRequest.count({ where: { orgId: org.id, status: 'declined', app: { id: app.id } } })).toBe(1);
    expect(await prisma.grant.findUniqueOrThrow({ where: { id: 'grant-1' } })).toEqual(grant);
    expect(await prisma.oidcModel.findUniqueOrThrow({ where: { model_id: { model: 'AccessToken', id: 'hash-of-token' } } })).toEqual(oidc);
    expect(await prisma.keyMaterial.findUniqueOrThrow({ where: { id: 'key-1' } })).toEqual(key);
    expect(
      await prisma.toolRestriction.findUniqueOrThrow({
        where: { orgId_toolName: { orgId: org.id, toolName: 'list_members' } },
      }),
    ).toEqual(restriction);
    expect(await prisma.connector.findUniqueOrThrow({ where: { slug: 'notes' } })).toEqual(connector);
    expect(await prisma.connector.findUniqueOrThrow({ where: { slug: 'tickets' } })).toEqual(tokenConnector);
    expect(await prisma.connectorTool.findUniqueOrThrow({ where: { exposedName: 'notes__search' } })).toEqual(connectorTool);
    expect(await prisma.orgConnector.findUniqueOrThrow({ where: { orgId_connectorId: { orgId: org.id, connectorId: connector.id } } })).toEqual(orgConnector);
    expect(await prisma.auditEvent.findUniqueOrThrow({ where: { id: audit.id } })).toEqual(audit);
    expect(await prisma.mcpCall.findUniqueOrThrow({ where: { id: call.id } })).toEqual(call);
    expect(await prisma.signInSession.findUniqueOrThrow({ where: { id: 'session-1' } })).toEqual(signInSession);
    expect(await prisma.passwordLink.findUniqueOrThrow({ where: { tokenHash: 'hash-of-link' } })).toEqual(link);

    // Relations and the indexed lookups the product relies on.
    const withRelations = await prisma.person.findUniqueOrThrow({
      where: { id: person.id },
      include: { memberships: { include: { org: true } }, grants: { include: { client: true } } },
    });
    expect(withRelations.memberships[0]?.org.slug).toBe('analytical');
    expect(withRelations.grants[0]?.client.hostname).toBe('app.example');
    const owned = await prisma.organization.findUniqueOrThrow({
      where: { id: org.id },
      include: { ownedClients: true, passwordLinks: true },
    });
    expect(owned.ownedClients.map((c) => c.clientId)).toEqual([client.clientId]);
    expect(owned.passwordLinks).toHaveLength(1);
    expect(await prisma.signInSession.count({ where: { personId: person.id } })).toBe(1);
    expect(await prisma.oidcModel.findFirst({ where: { uid: 'uid-1' } })).not.toBeNull();
    expect(await prisma.oidcModel.count({ where: { grantId: 'grant-1' } })).toBe(1);
    expect(typeof audit.id).toBe('bigint');
  });

  it('applies defaults and constraints like the schema says', async () => {
    const prisma = database.prisma;
    const person = await prisma.person.create({ data: { email: 'bob@example.test', name: 'Bob' } });
    expect(person).toMatchObject({ passwordHash: null, isInstanceAdmin: false, disabledAt: null, failedSignIns: 0, lockedUntil: null });
    const org = await prisma.organization.create({ data: { slug: 'defaults', name: 'Defaults' } });
    expect(org).toMatchObject({ planStatus: 'active', appPolicy: 'open' });
    const membership = await prisma.membership.create({ data: { personId: person.id, orgId: org.id, role: 'viewer' } });
    expect(membership.status).toBe('active');
    const event = await prisma.auditEvent.create({ data: { type: 'x' } });
    expect(event.data).toEqual({});
    const session = await prisma.signInSession.create({ data: { id: 's-defaults', personId: person.id, expiresAt: new Date() } });
    expect(session).toMatchObject({ ip: null, endedAt: null });
    const app = await prisma.app.create({ data: { key: 'admin:owned', kind: 'admin', displayName: 'Owned' } });
    expect(app).toMatchObject({ evidence: {}, marks: [], registrationCount: 0 });
    const client = await prisma.oAuthClient.create({ data: { clientId: 'owned', registration: 'admin', ownerOrgId: org.id, appId: app.id } });
    await expect(prisma.app.create({ data: { key: 'admin:owned', kind: 'admin', displayName: 'Again' } })).rejects.toThrow();

    // A connector has header credentials or client credentials, never both, and client credentials whole.
    const clientCredentials = { tokenUrl: 'https://auth.internal/token', tokenClientId: 'g', tokenClientSecretSealed: 's', tokenClientAuth: 'client_secret_basic' };
    const connector = (slug: string) => ({ slug, name: slug, url: `https://${slug}.internal/mcp` });
    await expect(prisma.connector.create({ data: { ...connector('both'), ...clientCredentials, credentialSealed: 'sealed' } })).rejects.toThrow();
    await expect(prisma.connector.create({ data: { ...connector('partial'), tokenUrl: 'https://auth.internal/token' } })).rejects.toThrow();
    await expect(prisma.connector.create({ data: { ...connector('method'), ...clientCredentials, tokenClientAuth: 'private_key_jwt' } })).rejects.toThrow();
    await expect(prisma.connector.create({ data: { ...connector('orphan-scope'), tokenScope: 'x' } })).rejects.toThrow();
    expect(await prisma.connector.create({ data: { ...connector('whole'), ...clientCredentials } })).toMatchObject({ credentialSealed: null, tokenScope: null, tokenResource: null });

    await expect(prisma.person.create({ data: { email: 'bob@example.test', name: 'Bob 2' } })).rejects.toThrow();
    await expect(prisma.membership.create({ data: { personId: person.id, orgId: org.id, role: 'member' } })).rejects.toThrow();
    // Deleting an organization removes its memberships (ON DELETE CASCADE) and keeps its audit trail.
    await prisma.organization.delete({ where: { id: org.id } });
    expect(await prisma.membership.count({ where: { orgId: org.id } })).toBe(0);
    // …and a client it registered by hand stays, without an owner (ON DELETE SET NULL).
    expect((await prisma.oAuthClient.findUniqueOrThrow({ where: { clientId: client.clientId } })).ownerOrgId).toBeNull();
    // Deleting an app leaves its registrations without one (ON DELETE SET NULL), for start-up to assign again.
    await prisma.app.delete({ where: { id: app.id } });
    expect((await prisma.oAuthClient.findUniqueOrThrow({ where: { clientId: client.clientId } })).appId).toBeNull();
    await prisma.person.delete({ where: { id: person.id } });
    expect(await prisma.signInSession.count({ where: { personId: person.id } })).toBe(0);
  });
});
