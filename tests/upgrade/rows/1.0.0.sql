-- Rows as release 1.0.0 writes them, in every table of its schemas: the data the next release's
-- migrations must apply to (tests/upgrade/test_migration_rules.py). Nullable columns are null in
-- some rows and set in others, as a live installation has them.

-- gateway
INSERT INTO gateway.organizations (id, name, plan, created_at) VALUES
    ('01930000-0000-7000-8000-000000000001', 'Acme', 'free', now() - interval '30 days'),
    ('01930000-0000-7000-8000-000000000002', 'Globex', 'business', now());
INSERT INTO gateway.users (id, email) VALUES
    ('01930000-0000-7000-8000-000000000101', 'owner@acme.example'),
    ('01930000-0000-7000-8000-000000000102', 'member@acme.example');
INSERT INTO gateway.memberships (organization_id, user_id, role) VALUES
    ('01930000-0000-7000-8000-000000000001', '01930000-0000-7000-8000-000000000101', 'owner'),
    ('01930000-0000-7000-8000-000000000001', '01930000-0000-7000-8000-000000000102', 'member');
INSERT INTO gateway.api_keys (id, organization_id, mode, key_hash, key_prefix, scopes, revoked_at, last_used_at,
                              name, key_last_four, created_by) VALUES
    ('01930000-0000-7000-8000-000000000201', '01930000-0000-7000-8000-000000000001', 'live', 'hash-1', 'svc_live_ab',
     '{read,print,admin}', NULL, now(), 'backend', 'wxyz', '01930000-0000-7000-8000-000000000101'),
    ('01930000-0000-7000-8000-000000000202', '01930000-0000-7000-8000-000000000001', 'test', 'hash-2', 'svc_test_cd',
     '{read}', now(), NULL, '', '', NULL);
INSERT INTO gateway.invitations (id, organization_id, email, role, invited_by, accepted_at, revoked_at) VALUES
    ('01930000-0000-7000-8000-000000000301', '01930000-0000-7000-8000-000000000001', 'new@acme.example', 'member',
     '01930000-0000-7000-8000-000000000101', NULL, NULL),
    ('01930000-0000-7000-8000-000000000302', '01930000-0000-7000-8000-000000000001', 'member@acme.example',
     'member', '01930000-0000-7000-8000-000000000101', now(), NULL);
INSERT INTO gateway.sign_in_codes (id, email, code_hash, expires_at, wrong_tries, ended_at) VALUES
    ('01930000-0000-7000-8000-000000000401', 'owner@acme.example', 'code-hash', now() + interval '10 minutes', 0, NULL),
    ('01930000-0000-7000-8000-000000000402', 'owner@acme.example', 'code-hash-2', now(), 2, now());
INSERT INTO gateway.sign_in_requests (subject) VALUES ('email:owner@acme.example'), ('client:127.0.0.1');
INSERT INTO gateway.sessions (id, token_hash, user_id, organization_id, mode, expires_at, revoked_at) VALUES
    ('01930000-0000-7000-8000-000000000501', 'session-hash', '01930000-0000-7000-8000-000000000101',
     '01930000-0000-7000-8000-000000000001', 'live', now() + interval '12 hours', NULL);

-- devices
INSERT INTO devices.computers (id, organization_id, mode, name, hostname, os, os_version, arch, agent_version,
                               state, is_virtual, disabled, deleted_at, gateway_instance, last_seen_at) VALUES
    ('01930000-0000-7000-8000-000000001001', '01930000-0000-7000-8000-000000000001', 'live', 'Front desk',
     'frontdesk', 'linux', '6.8', 'x86_64', '1.0.0', 'online', false, false, NULL, 'gw-1', now()),
    ('01930000-0000-7000-8000-000000001002', '01930000-0000-7000-8000-000000000001', 'test', 'Virtual computer',
     'virtual-computer', 'virtual', '1', 'virtual', '0.1.0', 'offline', true, false, NULL, NULL, NULL);
INSERT INTO devices.printers (id, organization_id, mode, computer_id, name, os_name, description, display_name,
                              remarks, enabled, is_default, state, state_detail, capabilities, default_options,
                              custom_papers, removed_at) VALUES
    ('01930000-0000-7000-8000-000000001101', '01930000-0000-7000-8000-000000000001', 'live',
     '01930000-0000-7000-8000-000000001001', 'office', 'Office', 'HP', 'Office', 'by the door', true, true,
     'online', '', '{"papers": {"A4": [2100, 2970]}}', '{"paper": "A4"}', '[{"name": "Label", "width": 1000, "height": 500}]',
     NULL),
    ('01930000-0000-7000-8000-000000001102', '01930000-0000-7000-8000-000000000001', 'live',
     '01930000-0000-7000-8000-000000001001', 'old', 'Old', '', 'Old', NULL, false, false, 'offline',
     'CUPS queue old is stopped', '{}', '{}', '[]', now());
INSERT INTO devices.agent_credentials (id, computer_id, organization_id, mode, token_hash, revoked_at) VALUES
    ('01930000-0000-7000-8000-000000001201', '01930000-0000-7000-8000-000000001001',
     '01930000-0000-7000-8000-000000000001', 'live', 'credential-hash', NULL);
INSERT INTO devices.gateway_instances (instance_id, last_heartbeat_at) VALUES ('gw-1', now());

-- jobs
INSERT INTO jobs.stored_files (id, organization_id, mode, sha256, size, created_at, expires_at) VALUES
    ('01930000-0000-7000-8000-000000002001', '01930000-0000-7000-8000-000000000001', 'live', repeat('a', 64), 9,
     now(), now() + interval '7 days');
INSERT INTO jobs.stored_file_chunks (file_id, seq, data) VALUES
    ('01930000-0000-7000-8000-000000002001', 0, '\x255044462d312e340a'::bytea);
INSERT INTO jobs.print_jobs (id, organization_id, mode, printer_id, computer_id, printer_name, title, content_type,
                             source, qty, options, expire_after, expires_at, file_id, file_sha256, file_size, state,
                             state_message, send_count, created_at, sent_at, received_at, printing_at, finished_at,
                             resend_count, last_resent_at, custom_paper) VALUES
    ('01930000-0000-7000-8000-000000002101', '01930000-0000-7000-8000-000000000001', 'live',
     '01930000-0000-7000-8000-000000001101', '01930000-0000-7000-8000-000000001001', 'office', 'Invoice 42',
     'pdf_base64', 'api', 1, '{"copies": 2}', 14400, now() + interval '4 hours',
     '01930000-0000-7000-8000-000000002001', repeat('a', 64), 9, 'done', 'duplex ignored', 1, now(), now(), now(),
     now(), now(), 0, NULL, NULL),
    ('01930000-0000-7000-8000-000000002102', '01930000-0000-7000-8000-000000000001', 'live',
     '01930000-0000-7000-8000-000000001101', '01930000-0000-7000-8000-000000001001', 'office', 'Label',
     'pdf_uri', 'api', 1, '{"paper": "Label"}', 14400, now() + interval '4 hours', NULL, '', 0, 'queued', NULL, 0,
     now(), NULL, NULL, NULL, NULL, 0, NULL, '{"name": "Label", "width": 1000, "height": 500}'),
    ('01930000-0000-7000-8000-000000002103', '01930000-0000-7000-8000-000000000001', 'live',
     '01930000-0000-7000-8000-000000001101', '01930000-0000-7000-8000-000000001001', 'office', 'Resent',
     'raw_base64', 'api', 1, '{}', 14400, now() + interval '4 hours', '01930000-0000-7000-8000-000000002001',
     repeat('a', 64), 9, 'sent', NULL, 2, now(), now(), NULL, NULL, NULL, 1, now(), NULL);
INSERT INTO jobs.job_state_changes (id, job_id, organization_id, mode, state, message, actor, created_at) VALUES
    ('01930000-0000-7000-8000-000000002201', '01930000-0000-7000-8000-000000002101',
     '01930000-0000-7000-8000-000000000001', 'live', 'queued', NULL, 'api', now()),
    ('01930000-0000-7000-8000-000000002202', '01930000-0000-7000-8000-000000002101',
     '01930000-0000-7000-8000-000000000001', 'live', 'done', 'duplex ignored', 'agent', now());
INSERT INTO jobs.pending_fetches (job_id, url, auth_user, auth_pass, expires_at, claimed_until) VALUES
    ('01930000-0000-7000-8000-000000002102', 'https://files.example/label.pdf', NULL, NULL,
     now() + interval '1 hour', NULL);
INSERT INTO jobs.test_job_counts (organization_id, day, jobs) VALUES
    ('01930000-0000-7000-8000-000000000001', current_date, 3);
INSERT INTO jobs.live_print_counts (organization_id, month, prints) VALUES
    ('01930000-0000-7000-8000-000000000001', date_trunc('month', now())::date, 3);
INSERT INTO jobs.idempotency_keys (organization_id, key, fingerprint, job_id, response, created_at) VALUES
    ('01930000-0000-7000-8000-000000000001', 'order-42', 'fingerprint', '01930000-0000-7000-8000-000000002101',
     '\x0a24'::bytea, now());

-- webhooks
INSERT INTO webhooks.endpoints (id, organization_id, mode, url, description, events, secret, enabled,
                                disabled_reason, failing_since, created_at, updated_at) VALUES
    ('01930000-0000-7000-8000-000000003001', '01930000-0000-7000-8000-000000000001', 'live',
     'https://hooks.example/printcloud', 'ERP', '{printjob.done,printjob.error}', 'whsec_secret', true, NULL, NULL,
     now(), now()),
    ('01930000-0000-7000-8000-000000003002', '01930000-0000-7000-8000-000000000001', 'live',
     'https://down.example/hook', 'old', '{printjob.done}', 'whsec_other', false, 'failing for 5 days', now(),
     now(), now());
INSERT INTO webhooks.endpoint_enabled_periods (endpoint_id, enabled_from, enabled_until) VALUES
    ('01930000-0000-7000-8000-000000003001', now() - interval '1 day', NULL),
    ('01930000-0000-7000-8000-000000003002', now() - interval '9 days', now() - interval '1 day');
INSERT INTO webhooks.events (id, organization_id, mode, type, occurred_at, data, recorded_at) VALUES
    ('01930000-0000-7000-8000-000000003101', '01930000-0000-7000-8000-000000000001', 'live', 'printjob.done',
     now(), '{"id": "01930000-0000-7000-8000-000000002101", "state": "done"}', now());
INSERT INTO webhooks.deliveries (id, endpoint_id, organization_id, mode, event_id, event_type, payload, attempt,
                                 status, response_code, response_body_excerpt, next_attempt_at, delivered_at,
                                 created_at, locked_until, last_attempt_at) VALUES
    ('01930000-0000-7000-8000-000000003201', '01930000-0000-7000-8000-000000003001',
     '01930000-0000-7000-8000-000000000001', 'live', '01930000-0000-7000-8000-000000003101', 'printjob.done',
     '{"type": "printjob.done"}', 1, 'succeeded', 200, 'ok', NULL, now(), now(), NULL, now()),
    ('01930000-0000-7000-8000-000000003202', '01930000-0000-7000-8000-000000003002',
     '01930000-0000-7000-8000-000000000001', 'live', '01930000-0000-7000-8000-000000003101', 'printjob.done',
     '{"type": "printjob.done"}', 3, 'retrying', 503, 'busy', now() + interval '1 hour', NULL, now(), NULL, now());
INSERT INTO webhooks.delivery_attempts (delivery_id, attempt, sent_at, response_code, response_body_excerpt) VALUES
    ('01930000-0000-7000-8000-000000003201', 1, now(), 200, 'ok'),
    ('01930000-0000-7000-8000-000000003202', 3, now(), NULL, 'timed out');
INSERT INTO webhooks.organization_owners (organization_id, email) VALUES
    ('01930000-0000-7000-8000-000000000001', 'owner@acme.example');
INSERT INTO webhooks.outgoing_mail (id, recipient, subject, body, created_at, sent_at, attempts, next_attempt_at) VALUES
    ('01930000-0000-7000-8000-000000003301', 'owner@acme.example', 'Endpoint disabled', 'failing', now(), NULL, 1,
     now());

-- every schema's outbox, processed messages and dead letters (printcloud.core.sql)
INSERT INTO gateway.outbox (id, topic, key, payload, headers, created_at, sent_at, sent_epoch)
    SELECT '01930000-0000-7000-8000-000000004001', 'printcloud.domain-events', 'k', '{"type": "organization.created"}',
           '{}', now(), now(), 'epoch-1';
INSERT INTO jobs.outbox (id, topic, key, payload, created_at, sent_at, sent_epoch) VALUES
    ('01930000-0000-7000-8000-000000004002', 'printcloud.agent-commands', 'c', '{"type": "job.deliver"}', now(),
     NULL, NULL);
INSERT INTO devices.outbox (id, topic, key, payload, sent_at, sent_epoch) VALUES
    ('01930000-0000-7000-8000-000000004003', 'printcloud.domain-events', 'c', '{"type": "computer.online"}', now(),
     'epoch-1');
INSERT INTO webhooks.outbox (id, topic, key, payload) VALUES
    ('01930000-0000-7000-8000-000000004004', 'printcloud.domain-events', 'e', '{}');
INSERT INTO gateway.processed_messages (consumer, message_id) VALUES ('gateway', '01930000-0000-7000-8000-000000004101');
INSERT INTO jobs.processed_messages (consumer, message_id) VALUES ('jobs', '01930000-0000-7000-8000-000000004102');
INSERT INTO devices.processed_messages (consumer, message_id) VALUES ('devices', '01930000-0000-7000-8000-000000004103');
INSERT INTO webhooks.processed_messages (consumer, message_id) VALUES ('webhooks', '01930000-0000-7000-8000-000000004104');
INSERT INTO gateway.dead_letters (id, consumer, topic, partition, "offset", key, value, headers, error, attempts,
                                  failed_at, replayed_at)
    SELECT gen_random_uuid(), 'gateway', 'printcloud.domain-events', 0, 7, NULL, '\x7b7d'::bytea, '{}', 'boom', 5,
           now(), NULL;
INSERT INTO jobs.dead_letters (id, consumer, topic, partition, "offset", key, value, headers, error, attempts,
                               failed_at, replayed_at)
    SELECT gen_random_uuid(), 'jobs', 'printcloud.domain-events', 1, 8, 'k', '\x7b7d'::bytea, '{}', 'boom', 5, now(),
           now();
INSERT INTO devices.dead_letters (id, consumer, topic, partition, "offset", key, value, headers, error, attempts,
                                  failed_at)
    SELECT gen_random_uuid(), 'devices', 'printcloud.domain-events', 2, 9, 'k', '\x7b7d'::bytea, '{}', 'boom', 5, now();
INSERT INTO webhooks.dead_letters (id, consumer, topic, partition, "offset", key, value, headers, error, attempts,
                                   failed_at)
    SELECT gen_random_uuid(), 'webhooks', 'printcloud.domain-events', 3, 10, NULL, '\x7b7d'::bytea, '{}', 'boom', 5,
           now();
