-- A create is made for the printer as jobs last read it, which a replica may keep in memory. The
-- create's one statement checks that the scope's printer facts are still at the generation of that
-- read, so that a printer changed (and forgotten) since, through any replica, fails the statement
-- and the create reads it again, as it would have without the memory.
CREATE FUNCTION printer_facts_hold(read_at bigint, current_generation bigint) RETURNS bigint
    LANGUAGE plpgsql AS $$
BEGIN
    IF read_at <> current_generation THEN
        RAISE EXCEPTION 'the printers of the scope changed since they were read' USING ERRCODE = 'PCL02';
    END IF;
    RETURN current_generation;
END
$$;
