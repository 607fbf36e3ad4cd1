-- Files are kept 7 days for reprints; a job outlives its file and keeps its digest and size.
CREATE TABLE stored_files (
    id uuid PRIMARY KEY,
    organization_id uuid NOT NULL,
    mode text NOT NULL CHECK (mode IN ('live', 'test')),
    sha256 text NOT NULL,
    size bigint NOT NULL,
    content bytea NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
);
CREATE INDEX stored_files_scope_sha256 ON stored_files (organization_id, mode, sha256);
CREATE INDEX stored_files_expires_at ON stored_files (expires_at);

CREATE TABLE print_jobs (
    id uuid PRIMARY KEY,
    organization_id uuid NOT NULL,
    mode text NOT NULL CHECK (mode IN ('live', 'test')),
    printer_id uuid NOT NULL,
    computer_id uuid NOT NULL,
    printer_name text NOT NULL,
    title text NOT NULL,
    content_type text NOT NULL,
    source text NOT NULL,
    qty integer NOT NULL,
    options jsonb NOT NULL,
    expire_after integer NOT NULL,
    expires_at timestamptz NOT NULL,
    -- Null once the stored file is purged; URL jobs will also be created before their file exists.
    file_id uuid REFERENCES stored_files (id) ON DELETE SET NULL,
    file_sha256 text NOT NULL,
    file_size bigint NOT NULL,
    state text NOT NULL
        CHECK (state IN ('queued', 'sent', 'received', 'printing', 'done', 'error', 'cancelled', 'expired')),
    state_message text,
    send_count integer NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL,
    sent_at timestamptz,
    received_at timestamptz,
    printing_at timestamptz,
    finished_at timestamptz
);
-- Ids are UUIDv7, so (scope, filter, id) serves each filtered list in either direction.
CREATE INDEX print_jobs_scope ON print_jobs (organization_id, mode, id);
CREATE INDEX print_jobs_scope_printer ON print_jobs (organization_id, mode, printer_id, id);
CREATE INDEX print_jobs_scope_computer ON print_jobs (organization_id, mode, computer_id, id);
CREATE INDEX print_jobs_scope_state ON print_jobs (organization_id, mode, state, id);
CREATE INDEX print_jobs_scope_created_at ON print_jobs (organization_id, mode, created_at);
CREATE INDEX print_jobs_pending ON print_jobs (computer_id, id) WHERE state = 'queued';

CREATE TABLE job_state_changes (
    id uuid PRIMARY KEY,
    job_id uuid NOT NULL REFERENCES print_jobs (id) ON DELETE CASCADE,
    organization_id uuid NOT NULL,
    mode text NOT NULL CHECK (mode IN ('live', 'test')),
    state text NOT NULL,
    message text,
    actor text NOT NULL CHECK (actor IN ('api', 'user', 'agent', 'system')),
    created_at timestamptz NOT NULL
);
CREATE INDEX job_state_changes_job ON job_state_changes (job_id, id);
