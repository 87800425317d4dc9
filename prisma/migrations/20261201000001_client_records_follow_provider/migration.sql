-- Gatehouse's own client rows (what Connected Apps, the consoles and the audit log show) follow the
-- provider's stored metadata (what the consent screen shows), and client names carry no invisible or
-- control characters.
--
-- 1. Names registered before such characters were refused (lib/oauth/registration.ts) are neutralised:
--    each control (Cc), format (Cf: bidirectional overrides and isolates, marks, zero-width characters,
--    tags) and line or paragraph separator character becomes U+FFFD, visibly, in the provider's metadata
--    and in Gatehouse's row. The list is Unicode 17.0's, the version the application's rule was written
--    against. Audit events keep what was recorded at the time.
-- 2. RFC 7592 updates made before they reached Gatehouse's row left it with the old name and host: the
--    row takes the provider's current client_name, and the host of its first redirect URI that has one,
--    as lib/oauth/clients.ts redirectHostname computes it (the WHATWG URL parser's hostname). Where only
--    a URL parser could say what that host is (international or percent-encoded names, IPv4 numbers in
--    other spellings, userinfo, IPv6 other than [::1], ftp/ws/file URIs, spaces, controls, backslashes,
--    odd ports), the row's host is left as it was rather than guessed. Clients with no stored metadata
--    (metadata documents) keep their host.

CREATE FUNCTION "gatehouse_client_visible_text"(value TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE AS $$
  SELECT regexp_replace(
    value,
    '[\u0001-\u001f\u007f-\u009f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]',
    chr(65533),
    'g'
  )
$$;

-- The hostname of one redirect URI as the WHATWG URL parser reads it: '' when it has none (or does not
-- parse, so the application tries the next URI), NULL when this function cannot be sure.
CREATE FUNCTION "gatehouse_client_uri_host"(uri TEXT) RETURNS TEXT LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  parts TEXT[];
  scheme TEXT;
  rest TEXT;
  authority TEXT;
  host TEXT;
  port TEXT;
  port_invalid BOOLEAN;
  labels TEXT[];
  last_label TEXT;
BEGIN
  -- A parser strips surrounding spaces and controls and removes tabs and newlines anywhere, and reads
  -- backslashes as slashes in http(s): leave all of that to it.
  IF uri ~ '[\u0001-\u0020\\]' THEN
    RETURN NULL;
  END IF;
  parts := regexp_match(uri, '^([A-Za-z][A-Za-z0-9+.-]*):(.*)$');
  IF parts IS NULL THEN
    RETURN ''; -- not an absolute URL
  END IF;
  scheme := translate(parts[1], 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz');
  rest := parts[2];
  IF scheme IN ('ftp', 'ws', 'wss', 'file') THEN
    RETURN NULL;
  END IF;
  IF scheme IN ('http', 'https') THEN
    rest := regexp_replace(rest, '^/*', ''); -- special schemes skip any number of slashes
  ELSIF left(rest, 2) = '//' THEN
    rest := substr(rest, 3);
  ELSE
    RETURN ''; -- a non-special URL without an authority has no host
  END IF;
  authority := substring(rest FROM '^[^/?#]*');
  IF authority LIKE '%@%' THEN
    RETURN NULL;
  END IF;
  IF scheme IN ('http', 'https') AND authority ~ '^\[::1\](:[0-9]*)?$' THEN
    host := '[::1]';
    port := substring(authority FROM '^\[::1\]:?([0-9]*)$');
  ELSIF authority ~ '^[A-Za-z0-9.-]*(:[0-9]*)?$' THEN
    host := split_part(authority, ':', 1);
    port := split_part(authority, ':', 2);
  ELSE
    RETURN NULL;
  END IF;
  port_invalid := CASE WHEN port = '' THEN FALSE WHEN length(port) > 5 THEN TRUE ELSE port::INTEGER > 65535 END;
  IF port_invalid THEN
    RETURN NULL;
  END IF;
  IF host = '' THEN
    RETURN ''; -- http(s) without a host does not parse; any other has no host
  END IF;
  IF host = '[::1]' OR scheme NOT IN ('http', 'https') THEN
    RETURN host; -- a non-special URL's host is opaque: as written
  END IF;
  host := translate(host, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz');
  IF host !~ '[a-z0-9]' OR host ~ '(^|\.)xn--' THEN
    RETURN NULL; -- punycode is validated by the parser
  END IF;
  -- A host whose last label is a number is an IPv4 address, which the parser rewrites unless it is
  -- already a plain dotted quad.
  labels := string_to_array(host, '.');
  last_label := labels[cardinality(labels)];
  IF last_label = '' AND cardinality(labels) > 1 THEN
    last_label := labels[cardinality(labels) - 1];
  END IF;
  IF last_label ~ '^([0-9]+|0x[0-9a-f]*)$' THEN
    IF host ~ '^((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])$' THEN
      RETURN host;
    END IF;
    RETURN NULL;
  END IF;
  RETURN host;
END;
$$;

-- The host people see for a client: its first redirect URI's that has one (NULL when none has), or NULL
-- for "cannot be sure" — told apart from "none" by the second value.
CREATE FUNCTION "gatehouse_client_redirect_host"(uris JSONB, OUT host TEXT, OUT known BOOLEAN) LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  item JSONB;
  found TEXT;
BEGIN
  host := NULL;
  known := TRUE;
  IF jsonb_typeof(uris) IS DISTINCT FROM 'array' THEN
    RETURN;
  END IF;
  FOR item IN SELECT value FROM jsonb_array_elements(uris) LOOP
    CONTINUE WHEN jsonb_typeof(item) <> 'string';
    found := "gatehouse_client_uri_host"(item #>> '{}');
    IF found IS NULL THEN
      known := FALSE;
      RETURN;
    END IF;
    IF found <> '' THEN
      host := found;
      RETURN;
    END IF;
  END LOOP;
END;
$$;

UPDATE "oidc_models"
SET "payload" = jsonb_set("payload", '{client_name}', to_jsonb("gatehouse_client_visible_text"("payload"->>'client_name')))
WHERE "model" = 'Client'
  AND jsonb_typeof("payload"->'client_name') = 'string'
  AND "gatehouse_client_visible_text"("payload"->>'client_name') <> "payload"->>'client_name';

UPDATE "clients" AS c
SET "name" = CASE WHEN jsonb_typeof(m."payload"->'client_name') = 'string' THEN m."payload"->>'client_name' END
FROM "oidc_models" AS m
WHERE m."model" = 'Client'
  AND m."id" = c."client_id"
  AND c."name" IS DISTINCT FROM CASE WHEN jsonb_typeof(m."payload"->'client_name') = 'string' THEN m."payload"->>'client_name' END;

UPDATE "clients"
SET "name" = "gatehouse_client_visible_text"("name")
WHERE "name" IS NOT NULL
  AND "gatehouse_client_visible_text"("name") <> "name";

UPDATE "clients" AS c
SET "hostname" = (r).host
FROM (
  SELECT "id", "gatehouse_client_redirect_host"("payload"->'redirect_uris') AS r
  FROM "oidc_models"
  WHERE "model" = 'Client'
) AS m
WHERE m."id" = c."client_id"
  AND (m.r).known
  AND c."hostname" IS DISTINCT FROM (m.r).host;

DROP FUNCTION "gatehouse_client_redirect_host"(JSONB);
DROP FUNCTION "gatehouse_client_uri_host"(TEXT);
DROP FUNCTION "gatehouse_client_visible_text"(TEXT);
