// Stored tokens by the million, for the scale run: rows shaped like the ones the token endpoint writes
// (an AccessToken payload under the hash of a value, its grant row, the grant's person as a member of
// the org, its client), inserted in bulk by SQL, since a million OAuth flows would take days. Nobody
// holds these tokens: they are there so that every index the hot path uses is as large as it would be.
import pg from 'pg';

const FILLER_PEOPLE = 1_000;
const FILLER_CLIENTS = 100;
export const TOKENS_PER_GRANT = 10;

export type Filler = { grants: number; tokens: number; seconds: number; vacuumSeconds: number };

/** Adds filler until the database holds `tokens` access tokens over `tokens / 10` grants (at least). */
export async function seedFiller(databaseUrl: string, tokens: number, resource: string): Promise<Filler> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const started = Date.now();
  try {
    const count = async (sql: string) => Number((await client.query<{ n: string }>(sql)).rows[0]!.n);
    const haveTokens = await count(`SELECT count(*) AS n FROM oidc_models WHERE model = 'AccessToken'`);
    const haveGrants = await count(`SELECT count(*) AS n FROM grants`);
    const addTokens = Math.max(0, tokens - haveTokens);
    const addGrants = Math.max(0, Math.ceil(tokens / TOKENS_PER_GRANT) - haveGrants, Math.ceil(addTokens / TOKENS_PER_GRANT));
    if (addTokens === 0) return { grants: haveGrants, tokens: haveTokens, seconds: 0, vacuumSeconds: 0 };
    const { rows } = await client.query<{ id: string }>(`SELECT id FROM organizations WHERE slug = 'acme'`);
    const orgId = rows[0]!.id;
    const batch = (await count(`SELECT count(*) AS n FROM grants WHERE id LIKE 'filler-%'`)) + 1;
    const tag = `filler-${batch}`;

    await client.query('BEGIN');
    await client.query(
      `INSERT INTO people (id, email, name, updated_at)
       SELECT $1 || '-person-' || n, $1 || '-' || n || '@filler.test', 'Filler ' || n, now() FROM generate_series(1, $2) AS n`,
      [tag, FILLER_PEOPLE],
    );
    await client.query(
      `INSERT INTO memberships (id, person_id, org_id, role, updated_at)
       SELECT $1 || '-membership-' || n, $1 || '-person-' || n, $2, 'member', now() FROM generate_series(1, $3) AS n`,
      [tag, orgId, FILLER_PEOPLE],
    );
    await client.query(
      `INSERT INTO clients (client_id, registration, name, hostname)
       SELECT $1 || '-client-' || n, 'dynamic', 'Filler client ' || n, 'filler.example' FROM generate_series(1, $2) AS n`,
      [tag, FILLER_CLIENTS],
    );
    await client.query(
      `INSERT INTO grants (id, person_id, org_id, client_id, scopes)
       SELECT $1 || '-grant-' || n, $1 || '-person-' || (n % $3 + 1), $2, $1 || '-client-' || (n % $4 + 1), ARRAY['mcp:read', 'mcp:write']
         FROM generate_series(1, $5) AS n`,
      [tag, orgId, FILLER_PEOPLE, FILLER_CLIENTS, addGrants],
    );
    // Ids as the adapter stores them: base64url(sha256(value)), 43 characters.
    await client.query(
      `INSERT INTO oidc_models (model, id, payload, grant_id, expires_at)
       SELECT 'AccessToken',
              rtrim(translate(encode(sha256(($1 || '-token-' || n)::bytea), 'base64'), '+/', '-_'), '='),
              jsonb_build_object(
                'iat', extract(epoch FROM now())::bigint, 'exp', extract(epoch FROM now())::bigint + 3600,
                'accountId', $1 || '-person-' || (g % $3 + 1), 'clientId', $1 || '-client-' || (g % $4 + 1),
                'grantId', $1 || '-grant-' || g, 'aud', $2::text, 'scope', 'mcp:read mcp:write',
                'gty', 'authorization_code', 'kind', 'AccessToken', 'extra', '{}'::jsonb),
              $1 || '-grant-' || g,
              now() + interval '1 hour'
         FROM generate_series(1, $5) AS n, LATERAL (SELECT (n - 1) % $6 + 1 AS g) AS grant_of`,
      [tag, resource, FILLER_PEOPLE, FILLER_CLIENTS, addTokens, addGrants],
    );
    await client.query('COMMIT');
    const seeded = Date.now();
    // What an operator does after a bulk load, and what autovacuum would otherwise do in the middle of
    // the measurement, on the same two cores.
    await client.query('VACUUM (ANALYZE) oidc_models, grants, people, memberships, clients');
    return { grants: haveGrants + addGrants, tokens: haveTokens + addTokens, seconds: (seeded - started) / 1000, vacuumSeconds: (Date.now() - seeded) / 1000 };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
}
