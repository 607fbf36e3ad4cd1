-- Why a printer cannot print, or prints with a warning: IPP printer-state-reasons keywords without
-- their severity suffix, sorted (printcloud.protocol.printer_reasons). Additive: code that does not
-- know the column leaves it at its default, no reasons.
ALTER TABLE printers ADD COLUMN state_reasons text[] NOT NULL DEFAULT '{}';
