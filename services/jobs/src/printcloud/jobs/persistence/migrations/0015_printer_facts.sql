-- What a job's creation needs of its printer (a serialized printcloud.v1.Printer as devices
-- answered it), so that a create costs no call to devices while nothing changed. A scope's facts
-- are forgotten all at once, by raising its generation: after a change through the API (the
-- api-gateway asks before it answers) and on devices' printer.* events that change a printer's
-- settings. A fact holds only while it was filled at the scope's current generation, and for a
-- bounded time whatever jobs was told, so that a change it missed (made while a release before
-- this table served, say) is seen within that time.
CREATE TABLE printer_fact_scopes (
    organization_id uuid NOT NULL,
    mode text NOT NULL CHECK (mode IN ('live', 'test')),
    generation bigint NOT NULL,
    PRIMARY KEY (organization_id, mode)
);

CREATE TABLE printer_facts (
    printer_id uuid PRIMARY KEY,
    organization_id uuid NOT NULL,
    mode text NOT NULL CHECK (mode IN ('live', 'test')),
    generation bigint NOT NULL,
    printer bytea NOT NULL,
    filled_at timestamptz NOT NULL
);
