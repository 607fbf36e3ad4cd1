-- A job past its organization's limit fails the one statement that counts and writes it, so that
-- nothing of it stays whether or not a transaction surrounds that statement: the create needs no
-- BEGIN and COMMIT of its own, and the count's row lock is held only while the statement runs.
-- No limit (`most` null) admits every job.
CREATE FUNCTION count_within_limit(counted bigint, most bigint) RETURNS bigint
    LANGUAGE plpgsql AS $$
BEGIN
    IF counted > most THEN
        RAISE EXCEPTION 'the organization''s limit is reached' USING ERRCODE = 'PCL01';
    END IF;
    RETURN counted;
END
$$;
