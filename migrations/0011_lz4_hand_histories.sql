-- A settled hand's history is about 5 KB of JSON, which Postgres compresses as it stores it.
-- Its default method (pglz) was a tenth of Postgres's CPU when the room deals flat out; lz4
-- compresses the same records several times faster, at a slightly larger size. Only rows
-- written from now on use it; a Postgres built without lz4 (or older than 14) keeps pglz.
DO $$
BEGIN
    ALTER TABLE hands ALTER COLUMN history SET COMPRESSION lz4;
EXCEPTION
    WHEN feature_not_supported OR syntax_error OR invalid_parameter_value THEN
        RAISE NOTICE 'lz4 is not available; hand histories keep the default compression';
END;
$$;
