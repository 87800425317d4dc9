-- The resource indicator (RFC 8707) has one stored spelling: PUBLIC_URL/mcp exactly (lib/oauth/resource.ts).
-- Authorization requests used to be accepted, and stored as sent, in any spelling that parsed to it: a
-- trailing slash, an empty query or fragment, upper-case scheme or host, the default port, dot segments.
-- The provider matches a grant's, code's and refresh token's resource by its exact text, so those
-- spellings are rewritten to the canonical form here. The migration cannot know PUBLIC_URL; it applies
-- the normalisations of RFC 3986 §6.2.2 and §6.2.3 that those spellings need. A value it cannot bring to
-- the canonical form is left as it was: refreshing such a grant is refused with invalid_target and
-- changes nothing, and the client authorizes again.

CREATE FUNCTION "gatehouse_canonical_resource"(value TEXT) RETURNS TEXT LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  parts TEXT[];
  scheme TEXT;
  authority TEXT;
  path TEXT;
  segment TEXT;
  kept TEXT[] := '{}';
BEGIN
  -- What a URL parser drops: surrounding spaces and controls, tabs and newlines, backslashes as slashes.
  value := regexp_replace(btrim(value, E' \t\r\n\f\v'), E'[\t\r\n]', '', 'g');
  value := replace(value, E'\\', '/');
  parts := regexp_match(value, '^([A-Za-z][A-Za-z0-9+.-]*)://([^/?#@]*)([^?#]*)\??#?$');
  IF parts IS NULL THEN
    RETURN value;
  END IF;
  scheme := lower(parts[1]);
  authority := lower(parts[2]);
  IF scheme = 'https' THEN
    authority := regexp_replace(authority, ':0*443$', '');
  ELSIF scheme = 'http' THEN
    authority := regexp_replace(authority, ':0*80$', '');
  END IF;
  authority := regexp_replace(authority, ':$', '');
  path := parts[3];
  -- RFC 3986 §5.2.4: remove dot segments (a URL parser also reads %2e as a dot).
  FOREACH segment IN ARRAY string_to_array(path, '/') LOOP
    IF lower(segment) IN ('.', '%2e') OR segment = '' THEN
      CONTINUE;
    ELSIF lower(segment) IN ('..', '.%2e', '%2e.', '%2e%2e') THEN
      kept := kept[1:cardinality(kept) - 1];
    ELSE
      kept := kept || segment;
    END IF;
  END LOOP;
  RETURN scheme || '://' || authority || CASE WHEN cardinality(kept) = 0 THEN '' ELSE '/' || array_to_string(kept, '/') END;
END;
$$;

-- A grant's scopes are keyed by its resource.
UPDATE "oidc_models"
SET "payload" = jsonb_set("payload", '{resources}', (
  SELECT jsonb_object_agg("gatehouse_canonical_resource"(entry.key), entry.value)
  FROM jsonb_each("payload"->'resources') AS entry
))
WHERE "model" = 'Grant'
  AND jsonb_typeof("payload"->'resources') = 'object'
  AND "payload"->'resources' <> '{}'::jsonb;

-- Codes and refresh tokens carry the resource they were issued for.
UPDATE "oidc_models"
SET "payload" = jsonb_set("payload", '{resource}', to_jsonb("gatehouse_canonical_resource"("payload"->>'resource')))
WHERE "model" IN ('AuthorizationCode', 'RefreshToken')
  AND jsonb_typeof("payload"->'resource') = 'string';

UPDATE "oidc_models"
SET "payload" = jsonb_set("payload", '{resource}', (
  SELECT jsonb_agg(DISTINCT "gatehouse_canonical_resource"(item))
  FROM jsonb_array_elements_text("payload"->'resource') AS item
))
WHERE "model" IN ('AuthorizationCode', 'RefreshToken')
  AND jsonb_typeof("payload"->'resource') = 'array'
  AND "payload"->'resource' <> '[]'::jsonb;

-- Consent screens still open: the authorization request they resume.
UPDATE "oidc_models"
SET "payload" = jsonb_set("payload", '{params,resource}', to_jsonb("gatehouse_canonical_resource"("payload"->'params'->>'resource')))
WHERE "model" = 'Interaction'
  AND jsonb_typeof("payload"->'params'->'resource') = 'string';

DROP FUNCTION "gatehouse_canonical_resource"(TEXT);
