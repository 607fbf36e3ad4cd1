-- Replicas keep recently verified keys in memory (domain/verified_keys.py) and forget them on every
-- change that could alter who a key is: revoked, re-scoped, deleted, or its organization renamed,
-- re-planned or deleted. `last_used_at` is left out: it changes on use and alters nothing.
CREATE FUNCTION api_key_changes_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('api_key_changes_' || TG_TABLE_SCHEMA, '');
    RETURN NULL;
END $$;
CREATE TRIGGER api_key_changes_notify
    AFTER UPDATE OF organization_id, mode, key_hash, scopes, revoked_at OR DELETE ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION api_key_changes_notify();
CREATE TRIGGER organization_changes_notify
    AFTER UPDATE OF name, plan OR DELETE ON organizations
    FOR EACH STATEMENT EXECUTE FUNCTION api_key_changes_notify();
