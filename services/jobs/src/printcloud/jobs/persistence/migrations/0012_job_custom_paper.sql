-- The custom paper a job's `paper` option names, as saved on the printer when the job was created
-- ({name, width, height}, tenths of a millimetre): the agent prints at that size, and a later
-- change to the printer's custom papers does not change a job already accepted.
ALTER TABLE print_jobs ADD COLUMN custom_paper jsonb;
