-- Files are stored in 1 MB pieces: writing or reading one never needs the whole file in one
-- message, so neither the jobs process nor PostgreSQL holds extra full copies of a 25 MB file.
CREATE TABLE stored_file_chunks (
    file_id uuid NOT NULL REFERENCES stored_files (id) ON DELETE CASCADE,
    seq integer NOT NULL,
    data bytea NOT NULL,
    PRIMARY KEY (file_id, seq)
);
INSERT INTO stored_file_chunks (file_id, seq, data) SELECT id, 0, content FROM stored_files;
ALTER TABLE stored_files DROP COLUMN content;
