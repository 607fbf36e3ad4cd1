-- What devices last announced of each printer's condition (printer.* events), so that a job waiting
-- on a printer that cannot print says why without asking devices on every read. One row a printer;
-- `as_of` is the announcing event's time, so an older event delivered late changes nothing.
CREATE TABLE printer_conditions (
    printer_id uuid PRIMARY KEY,
    organization_id uuid NOT NULL,
    mode text NOT NULL CHECK (mode IN ('live', 'test')),
    state text NOT NULL,
    state_reasons text[] NOT NULL DEFAULT '{}',
    state_detail text NOT NULL DEFAULT '',
    as_of timestamptz NOT NULL
);
