--
-- PostgreSQL database dump
--


-- Dumped from database version 15.20 (Debian 15.20-0+deb12u1)
-- Dumped by pg_dump version 15.20 (Debian 15.20-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: events_are_append_only(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.events_are_append_only() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    RAISE EXCEPTION 'events are append-only';
END $$;


--
-- Name: formd_consume_uploads(text[], uuid[], uuid[], timestamp with time zone[], timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.formd_consume_uploads(keys text[], form_ids uuid[], submission_ids uuid[], links_expire timestamp with time zone[], now timestamp with time zone) RETURNS void
    LANGUAGE plpgsql
    AS $$
DECLARE
    missing text;
BEGIN
    SELECT k INTO missing FROM unnest(keys) AS k GROUP BY k HAVING count(*) > 1 LIMIT 1;
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION 'upload % is named twice', missing USING ERRCODE = 'FD003', DETAIL = missing;
    END IF;
    WITH wanted AS (
        SELECT * FROM unnest(keys, form_ids, submission_ids, links_expire) AS w(key, form_id, submission_id, links_expire)
    ), used AS (
        UPDATE upload_reservations r
           SET consumed_by = w.submission_id, consumed_at = now, links_expire = w.links_expire
          FROM wanted w
         WHERE r.key = w.key AND r.form_id = w.form_id AND r.consumed_by IS NULL
           AND r.expires_at > now AND r.scan = 'clean'
        RETURNING r.key
    )
    SELECT w.key INTO missing FROM wanted w WHERE w.key NOT IN (SELECT key FROM used) LIMIT 1;
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION 'upload % is not available', missing USING ERRCODE = 'FD003', DETAIL = missing;
    END IF;
END $$;


--
-- Name: formd_refuse(text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.formd_refuse(p_code text, p_message text) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
BEGIN
    RAISE EXCEPTION USING ERRCODE = p_code, MESSAGE = p_message;
END $$;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: accounts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.accounts (
    id uuid NOT NULL,
    email text NOT NULL,
    email_verified boolean DEFAULT false NOT NULL,
    created_at timestamp with time zone NOT NULL,
    plan text DEFAULT 'free'::text NOT NULL
);


--
-- Name: autoresponder_sends; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.autoresponder_sends (
    form_id uuid NOT NULL,
    address_hash text NOT NULL,
    request_id text NOT NULL,
    reserved_at timestamp with time zone NOT NULL
);


--
-- Name: captcha_secrets; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.captcha_secrets (
    form_id uuid NOT NULL,
    secret_id uuid NOT NULL,
    key_id text NOT NULL,
    wrapped_key bytea NOT NULL,
    ciphertext bytea NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: deliveries; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.deliveries (
    id uuid NOT NULL,
    submission_id uuid,
    form_id uuid,
    kind text NOT NULL,
    status text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    next_attempt_at timestamp with time zone,
    last_error text DEFAULT ''::text NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    verification_id uuid,
    claimed_by uuid,
    target text DEFAULT ''::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    finished_at timestamp with time zone,
    retries integer DEFAULT 0 NOT NULL,
    test boolean DEFAULT false NOT NULL,
    claimed_until timestamp with time zone,
    CONSTRAINT deliveries_sends_something CHECK (((submission_id IS NOT NULL) OR (verification_id IS NOT NULL) OR (test AND (form_id IS NOT NULL))))
)
WITH (fillfactor='85');


--
-- Name: delivery_workers; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.delivery_workers (
    instance_id uuid NOT NULL,
    seen_at timestamp with time zone NOT NULL
);


--
-- Name: entitlements; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.entitlements (
    account_id uuid NOT NULL,
    feature text NOT NULL,
    granted_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.events (
    global_position bigint NOT NULL,
    stream_type text NOT NULL,
    stream_id uuid NOT NULL,
    version integer NOT NULL,
    event_type text NOT NULL,
    schema_version integer DEFAULT 1 NOT NULL,
    data jsonb NOT NULL,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    recorded_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT events_version_check CHECK ((version > 0))
);


--
-- Name: events_global_position_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.events_global_position_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: events_global_position_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.events_global_position_seq OWNED BY public.events.global_position;


--
-- Name: forms; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.forms (
    id uuid NOT NULL,
    account_id uuid NOT NULL,
    workspace_id uuid NOT NULL,
    access_key_hash bytea NOT NULL,
    access_key_prefix text NOT NULL,
    settings jsonb NOT NULL,
    recipient_verified boolean DEFAULT false NOT NULL,
    version integer NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    integrations jsonb DEFAULT '[]'::jsonb NOT NULL
);


--
-- Name: goose_db_version; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.goose_db_version (
    id integer NOT NULL,
    version_id bigint NOT NULL,
    is_applied boolean NOT NULL,
    tstamp timestamp without time zone DEFAULT now() NOT NULL
);


--
-- Name: goose_db_version_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.goose_db_version ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.goose_db_version_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: idempotency_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.idempotency_keys (
    form_id uuid NOT NULL,
    key text NOT NULL,
    request_hash bytea NOT NULL,
    response jsonb NOT NULL,
    redirect text DEFAULT ''::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: integration_codes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.integration_codes (
    form_id uuid NOT NULL,
    integration text NOT NULL,
    code_hash bytea NOT NULL,
    expires_at timestamp with time zone NOT NULL
);


--
-- Name: integration_test_calls; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.integration_test_calls (
    form_id uuid NOT NULL,
    called_at timestamp with time zone NOT NULL
);


--
-- Name: password_reset_requests; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.password_reset_requests (
    address_hash bytea NOT NULL,
    requested_at timestamp with time zone NOT NULL
);


--
-- Name: poisoned_messages; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.poisoned_messages (
    id bigint NOT NULL,
    consumer_group text NOT NULL,
    topic text NOT NULL,
    message_uuid text NOT NULL,
    payload bytea NOT NULL,
    reason text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: poisoned_messages_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.poisoned_messages_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: poisoned_messages_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.poisoned_messages_id_seq OWNED BY public.poisoned_messages.id;


--
-- Name: sessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sessions (
    token_hash bytea NOT NULL,
    account_id uuid NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone NOT NULL
);


--
-- Name: spent_challenges; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.spent_challenges (
    challenge text NOT NULL,
    expires_at timestamp with time zone NOT NULL
);


--
-- Name: submission_payloads; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.submission_payloads (
    submission_id uuid NOT NULL,
    form_id uuid NOT NULL,
    wrapped_key bytea NOT NULL,
    ciphertext bytea NOT NULL,
    pending integer NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    key_id text DEFAULT ''::text NOT NULL,
    keep_until timestamp with time zone,
    CONSTRAINT submission_payloads_pending_check CHECK ((pending >= 0))
);
ALTER TABLE ONLY public.submission_payloads ALTER COLUMN ciphertext SET STORAGE EXTERNAL;


--
-- Name: submission_quota_usage; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.submission_quota_usage (
    account_id uuid NOT NULL,
    month date NOT NULL,
    used integer NOT NULL,
    CONSTRAINT submission_quota_usage_used_check CHECK ((used >= 0))
);


--
-- Name: telegram_updates; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.telegram_updates (
    singleton boolean DEFAULT true NOT NULL,
    next_update_id bigint NOT NULL,
    CONSTRAINT telegram_updates_singleton_check CHECK (singleton)
);


--
-- Name: test_inbox; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.test_inbox (
    id uuid NOT NULL,
    form_id uuid NOT NULL,
    request_id text NOT NULL,
    idempotency_key text DEFAULT ''::text NOT NULL,
    received_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    key_id text NOT NULL,
    wrapped_key bytea NOT NULL,
    ciphertext bytea NOT NULL
);


--
-- Name: throttle_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.throttle_keys (
    key bytea NOT NULL,
    touched_at timestamp with time zone NOT NULL
);


--
-- Name: upload_object_chunks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.upload_object_chunks (
    key text NOT NULL,
    seq integer NOT NULL,
    data bytea NOT NULL
);
ALTER TABLE ONLY public.upload_object_chunks ALTER COLUMN data SET STORAGE EXTERNAL;


--
-- Name: upload_objects; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.upload_objects (
    key text NOT NULL,
    content_type text NOT NULL,
    size bigint NOT NULL,
    content bytea,
    stored_at timestamp with time zone DEFAULT now() NOT NULL
);
ALTER TABLE ONLY public.upload_objects ALTER COLUMN content SET STORAGE EXTERNAL;


--
-- Name: upload_reservations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.upload_reservations (
    key text NOT NULL,
    form_id uuid NOT NULL,
    name text NOT NULL,
    declared_type text NOT NULL,
    size bigint NOT NULL,
    reserved_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    uploaded_at timestamp with time zone,
    scan text DEFAULT ''::text NOT NULL,
    signature text DEFAULT ''::text NOT NULL,
    detected text[] DEFAULT '{}'::text[] NOT NULL,
    stored_size bigint,
    scanned_at timestamp with time zone,
    consumed_by uuid,
    consumed_at timestamp with time zone,
    links_expire timestamp with time zone,
    CONSTRAINT upload_reservations_scan_check CHECK ((scan = ANY (ARRAY[''::text, 'clean'::text, 'infected'::text]))),
    CONSTRAINT upload_reservations_size_check CHECK ((size >= 0))
);


--
-- Name: verifications; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.verifications (
    id uuid NOT NULL,
    kind text NOT NULL,
    subject_id uuid NOT NULL,
    email text NOT NULL,
    token_hash bytea NOT NULL,
    delivery_id uuid NOT NULL,
    status text NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    created_at timestamp with time zone NOT NULL,
    account_id uuid
);


--
-- Name: watermill_form; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.watermill_form (
    "offset" bigint NOT NULL,
    uuid character varying(36) NOT NULL,
    created_at timestamp without time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    payload bytea,
    metadata json,
    transaction_id xid8 NOT NULL
);


--
-- Name: watermill_form_offset_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.watermill_form_offset_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: watermill_form_offset_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.watermill_form_offset_seq OWNED BY public.watermill_form."offset";


--
-- Name: watermill_account; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.watermill_account (
    "offset" bigint DEFAULT nextval('public.watermill_form_offset_seq'::regclass) NOT NULL,
    uuid character varying(36) NOT NULL,
    created_at timestamp without time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    payload bytea,
    metadata json,
    transaction_id xid8 NOT NULL
);


--
-- Name: watermill_delivery; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.watermill_delivery (
    "offset" bigint DEFAULT nextval('public.watermill_form_offset_seq'::regclass) NOT NULL,
    uuid character varying(36) NOT NULL,
    created_at timestamp without time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    payload bytea,
    metadata json,
    transaction_id xid8 NOT NULL
);


--
-- Name: watermill_offsets_account; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.watermill_offsets_account (
    consumer_group character varying(255) NOT NULL,
    offset_acked bigint,
    last_processed_transaction_id xid8 NOT NULL
);


--
-- Name: watermill_offsets_delivery; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.watermill_offsets_delivery (
    consumer_group character varying(255) NOT NULL,
    offset_acked bigint,
    last_processed_transaction_id xid8 NOT NULL
);


--
-- Name: watermill_offsets_form; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.watermill_offsets_form (
    consumer_group character varying(255) NOT NULL,
    offset_acked bigint,
    last_processed_transaction_id xid8 NOT NULL
);


--
-- Name: watermill_offsets_submission; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.watermill_offsets_submission (
    consumer_group character varying(255) NOT NULL,
    offset_acked bigint,
    last_processed_transaction_id xid8 NOT NULL
);


--
-- Name: watermill_offsets_verification; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.watermill_offsets_verification (
    consumer_group character varying(255) NOT NULL,
    offset_acked bigint,
    last_processed_transaction_id xid8 NOT NULL
);


--
-- Name: watermill_submission; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.watermill_submission (
    "offset" bigint DEFAULT nextval('public.watermill_form_offset_seq'::regclass) NOT NULL,
    uuid character varying(36) NOT NULL,
    created_at timestamp without time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    payload bytea,
    metadata json,
    transaction_id xid8 NOT NULL
);


--
-- Name: watermill_verification; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.watermill_verification (
    "offset" bigint DEFAULT nextval('public.watermill_form_offset_seq'::regclass) NOT NULL,
    uuid character varying(36) NOT NULL,
    created_at timestamp without time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    payload bytea,
    metadata json,
    transaction_id xid8 NOT NULL
);


--
-- Name: webhook_secrets; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.webhook_secrets (
    id uuid NOT NULL,
    form_id uuid NOT NULL,
    prefix text NOT NULL,
    key_id text NOT NULL,
    wrapped_key bytea NOT NULL,
    ciphertext bytea NOT NULL,
    created_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone
);


--
-- Name: workspace_tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.workspace_tokens (
    id uuid NOT NULL,
    account_id uuid NOT NULL,
    workspace_id uuid NOT NULL,
    name text NOT NULL,
    prefix text NOT NULL,
    token_hash bytea NOT NULL,
    scopes text[] NOT NULL,
    created_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone,
    last_used_at timestamp with time zone
);


--
-- Name: workspaces; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.workspaces (
    id uuid NOT NULL,
    account_id uuid NOT NULL,
    name text NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: events global_position; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events ALTER COLUMN global_position SET DEFAULT nextval('public.events_global_position_seq'::regclass);


--
-- Name: poisoned_messages id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.poisoned_messages ALTER COLUMN id SET DEFAULT nextval('public.poisoned_messages_id_seq'::regclass);


--
-- Name: watermill_form offset; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.watermill_form ALTER COLUMN "offset" SET DEFAULT nextval('public.watermill_form_offset_seq'::regclass);


--
-- Data for Name: accounts; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.accounts (id, email, email_verified, created_at, plan) FROM stdin;
01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b	owner@fixture.example.test	t	2026-11-27 15:32:18.63451+00	free
\.


--
-- Data for Name: autoresponder_sends; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.autoresponder_sends (form_id, address_hash, request_id, reserved_at) FROM stdin;
\.


--
-- Data for Name: captcha_secrets; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.captcha_secrets (form_id, secret_id, key_id, wrapped_key, ciphertext, created_at) FROM stdin;
\.


--
-- Data for Name: deliveries; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.deliveries (id, submission_id, form_id, kind, status, attempts, next_attempt_at, last_error, updated_at, verification_id, claimed_by, target, created_at, finished_at, retries, test, claimed_until) FROM stdin;
01a21da2-ce52-70da-a389-baa319c507fe	\N	\N	account_verification	succeeded	1	\N		2026-11-27 15:32:20.068662+00	01a21da2-ce52-70a2-9005-0a0daff35ec2	\N	fixture.example.test	2026-11-27 15:32:18.63451+00	2026-11-27 15:32:20.068662+00	0	f	\N
01a21da2-d3fc-7805-8d60-8daf18451fcd	\N	01a21da2-d3f7-7b96-bb34-aa1254474ed5	recipient_verification	succeeded	1	\N		2026-11-27 15:32:22.062574+00	01a21da2-d3fc-77d5-83fe-59ba64d822a0	\N	fixture.example.test	2026-11-27 15:32:20.08776+00	2026-11-27 15:32:22.062574+00	0	f	\N
01a21da2-dbc0-77bc-8c45-e536912533dc	\N	01a21da2-dbbe-7109-81f6-3a800bd60362	recipient_verification	succeeded	1	\N		2026-11-27 15:32:24.310395+00	01a21da2-dbc0-7729-bfad-7aa068642b00	\N	fixture.example.test	2026-11-27 15:32:22.078068+00	2026-11-27 15:32:24.310395+00	0	f	\N
01a21da2-e5e4-7f22-9d8a-8555646eab5a	01a21da2-e5e4-7f16-b5af-037a74d1617d	01a21da2-d3f7-7b96-bb34-aa1254474ed5	email	queued	0	2026-11-27 15:32:24.676985+00		2026-11-27 15:32:24.676985+00	\N	\N	fixture.example.test	2026-11-27 15:32:24.676985+00	\N	0	f	\N
01a21da2-e604-77fd-af07-af3d8585ae0d	01a21da2-e604-77f0-a920-6af217b0bd86	01a21da2-d3f7-7b96-bb34-aa1254474ed5	email	queued	0	2026-11-27 15:32:24.708518+00		2026-11-27 15:32:24.708518+00	\N	\N	fixture.example.test	2026-11-27 15:32:24.708518+00	\N	0	f	\N
01a21da2-e611-7caf-9e77-36ff3f8b4f18	01a21da2-e611-7c81-905e-044776984728	01a21da2-dbbe-7109-81f6-3a800bd60362	email	queued	0	2026-11-27 15:32:24.721816+00		2026-11-27 15:32:24.721816+00	\N	\N	fixture.example.test	2026-11-27 15:32:24.721816+00	\N	0	f	\N
\.


--
-- Data for Name: delivery_workers; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.delivery_workers (instance_id, seen_at) FROM stdin;
\.


--
-- Data for Name: entitlements; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.entitlements (account_id, feature, granted_at) FROM stdin;
\.


--
-- Data for Name: events; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.events (global_position, stream_type, stream_id, version, event_type, schema_version, data, metadata, recorded_at) FROM stdin;
1	account	01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b	1	account.registered.v1	1	{"at": "2026-11-27T15:32:18.634510003Z", "email": "owner@fixture.example.test", "accountId": "01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b", "workspaceId": "01a21da2-ce4a-7c19-860e-777cc87c2d09", "passwordHash": "$argon2id$v=19$m=19456,t=2,p=1$C6hEc73BOzRxNXcv8ltRLg$NNSR9JwOg+sQo46gixGXwBUoJaOZ+0BmMj6epSQfQJw", "workspaceName": "Default"}	{"actor": {"id": "5a7740cf8a8c", "type": "agent"}, "accountId": "01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b", "requestId": "req_271ae6b497531b65c9611c19"}	2026-11-27 15:32:18.63479+00
2	verification	01a21da2-ce52-70a2-9005-0a0daff35ec2	1	verification.requested.v1	1	{"at": "2026-11-27T15:32:18.634510003Z", "kind": "account", "email": "owner@fixture.example.test", "accountId": "01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b", "expiresAt": "2026-11-30T15:32:18.634510003Z", "subjectId": "01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b", "tokenHash": "2bb136806f98ce1a4c5ec9dfc3f0a09f0968442099c8e03b63b3e13452f6e800", "deliveryId": "01a21da2-ce52-70da-a389-baa319c507fe", "verificationId": "01a21da2-ce52-70a2-9005-0a0daff35ec2"}	{"actor": {"id": "5a7740cf8a8c", "type": "agent"}, "accountId": "01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b", "requestId": "req_271ae6b497531b65c9611c19"}	2026-11-27 15:32:18.63479+00
3	delivery	01a21da2-ce52-70da-a389-baa319c507fe	1	delivery.queued.v1	1	{"at": "2026-11-27T15:32:18.634510003Z", "kind": "account_verification", "formId": "", "target": "fixture.example.test", "deliveryId": "01a21da2-ce52-70da-a389-baa319c507fe", "submissionId": "", "verificationId": "01a21da2-ce52-70a2-9005-0a0daff35ec2"}	{"actor": {"id": "5a7740cf8a8c", "type": "agent"}, "accountId": "01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b", "requestId": "req_271ae6b497531b65c9611c19"}	2026-11-27 15:32:18.63479+00
4	delivery	01a21da2-ce52-70da-a389-baa319c507fe	2	delivery.succeeded.v1	1	{"at": "2026-11-27T15:32:20.058400072Z", "attempt": 1}	{"actor": {"id": "delivery-worker", "type": "system"}, "causationId": "01a21da2-ce52-70da-a389-baa319c507fe"}	2026-11-27 15:32:20.068662+00
5	verification	01a21da2-ce52-70a2-9005-0a0daff35ec2	2	verification.completed.v1	1	{"at": "2026-11-27T15:32:20.077801616Z"}	{"actor": {"id": "01a21da2-ce52-70a2-9005-0a0daff35ec2", "type": "verification_link"}, "requestId": "req_ec1385a125e06d78887e95b4"}	2026-11-27 15:32:20.07817+00
6	account	01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b	2	account.email_verified.v1	1	{"at": "2026-11-27T15:32:20.077801616Z"}	{"actor": {"id": "01a21da2-ce52-70a2-9005-0a0daff35ec2", "type": "verification_link"}, "requestId": "req_ec1385a125e06d78887e95b4"}	2026-11-27 15:32:20.07817+00
7	form	01a21da2-d3f7-7b96-bb34-aa1254474ed5	1	form.created.v1	1	{"at": "2026-11-27T15:32:20.087760868Z", "formId": "01a21da2-d3f7-7b96-bb34-aa1254474ed5", "settings": {"name": "Contact", "validation": {"fields": []}, "replyToMode": "submitter", "autoresponder": {"enabled": false}, "allowedDomains": ["www.example.com"], "recipientEmail": "contact-inbox@fixture.example.test", "replyToDefault": "", "subjectDefault": "", "uploadsEnabled": false, "fromNameDefault": "Notifications", "redirectDefault": "", "allowedSenderIps": []}, "accountId": "01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b", "workspaceId": "01a21da2-ce4a-7c19-860e-777cc87c2d09", "accessKeyHash": "ec280dbe3c621156eccbd94d51fc2c1e9e38bf48237d883fa5e8a302a1fee4bb", "accessKeyPrefix": "40311433"}	{"actor": {"id": "5a7740cf8a8c", "type": "session"}, "accountId": "01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b", "requestId": "req_ec6f0a541fce23f0cd7a4226"}	2026-11-27 15:32:20.087887+00
8	verification	01a21da2-d3fc-77d5-83fe-59ba64d822a0	1	verification.requested.v1	1	{"at": "2026-11-27T15:32:20.087760868Z", "kind": "recipient", "email": "contact-inbox@fixture.example.test", "accountId": "01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b", "expiresAt": "2026-11-30T15:32:20.087760868Z", "subjectId": "01a21da2-d3f7-7b96-bb34-aa1254474ed5", "tokenHash": "814b7c29ac8c1265720be80751c9d9d1b3d20924a735806cbb46541ebfbf34c5", "deliveryId": "01a21da2-d3fc-7805-8d60-8daf18451fcd", "verificationId": "01a21da2-d3fc-77d5-83fe-59ba64d822a0"}	{"actor": {"id": "5a7740cf8a8c", "type": "session"}, "accountId": "01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b", "requestId": "req_ec6f0a541fce23f0cd7a4226"}	2026-11-27 15:32:20.087887+00
9	delivery	01a21da2-d3fc-7805-8d60-8daf18451fcd	1	delivery.queued.v1	1	{"at": "2026-11-27T15:32:20.087760868Z", "kind": "recipient_verification", "formId": "01a21da2-d3f7-7b96-bb34-aa1254474ed5", "target": "fixture.example.test", "deliveryId": "01a21da2-d3fc-7805-8d60-8daf18451fcd", "submissionId": "", "verificationId": "01a21da2-d3fc-77d5-83fe-59ba64d822a0"}	{"actor": {"id": "5a7740cf8a8c", "type": "session"}, "accountId": "01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b", "requestId": "req_ec6f0a541fce23f0cd7a4226"}	2026-11-27 15:32:20.087887+00
10	delivery	01a21da2-d3fc-7805-8d60-8daf18451fcd	2	delivery.succeeded.v1	1	{"at": "2026-11-27T15:32:22.052345804Z", "attempt": 1}	{"actor": {"id": "delivery-worker", "type": "system"}, "causationId": "01a21da2-d3fc-7805-8d60-8daf18451fcd"}	2026-11-27 15:32:22.062574+00
11	verification	01a21da2-d3fc-77d5-83fe-59ba64d822a0	2	verification.completed.v1	1	{"at": "2026-11-27T15:32:22.072479402Z"}	{"actor": {"id": "01a21da2-d3fc-77d5-83fe-59ba64d822a0", "type": "verification_link"}, "requestId": "req_2b0916434855f804f40ef694"}	2026-11-27 15:32:22.072596+00
12	form	01a21da2-d3f7-7b96-bb34-aa1254474ed5	2	form.recipient_verified.v1	1	{"at": "2026-11-27T15:32:22.072479402Z", "recipientEmail": "contact-inbox@fixture.example.test"}	{"actor": {"id": "01a21da2-d3fc-77d5-83fe-59ba64d822a0", "type": "verification_link"}, "requestId": "req_2b0916434855f804f40ef694"}	2026-11-27 15:32:22.072596+00
13	form	01a21da2-dbbe-7109-81f6-3a800bd60362	1	form.created.v1	1	{"at": "2026-11-27T15:32:22.078068706Z", "formId": "01a21da2-dbbe-7109-81f6-3a800bd60362", "settings": {"name": "Newsletter", "validation": {"fields": []}, "replyToMode": "submitter", "autoresponder": {"enabled": false}, "allowedDomains": [], "recipientEmail": "signup-inbox@fixture.example.test", "replyToDefault": "", "subjectDefault": "", "uploadsEnabled": false, "fromNameDefault": "Notifications", "redirectDefault": "", "allowedSenderIps": []}, "accountId": "01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b", "workspaceId": "01a21da2-ce4a-7c19-860e-777cc87c2d09", "accessKeyHash": "e4537a75ad2a3848adee36b5a58175e48e677983a7d8877d890b7c39fe790850", "accessKeyPrefix": "7fbd342b"}	{"actor": {"id": "5a7740cf8a8c", "type": "session"}, "accountId": "01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b", "requestId": "req_3cb2afac613d6d4f499d698e"}	2026-11-27 15:32:22.078282+00
14	verification	01a21da2-dbc0-7729-bfad-7aa068642b00	1	verification.requested.v1	1	{"at": "2026-11-27T15:32:22.078068706Z", "kind": "recipient", "email": "signup-inbox@fixture.example.test", "accountId": "01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b", "expiresAt": "2026-11-30T15:32:22.078068706Z", "subjectId": "01a21da2-dbbe-7109-81f6-3a800bd60362", "tokenHash": "c74d6e74de4e8240c5f35446c6c860a0654bfa78f4edb338510a0c4986360fad", "deliveryId": "01a21da2-dbc0-77bc-8c45-e536912533dc", "verificationId": "01a21da2-dbc0-7729-bfad-7aa068642b00"}	{"actor": {"id": "5a7740cf8a8c", "type": "session"}, "accountId": "01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b", "requestId": "req_3cb2afac613d6d4f499d698e"}	2026-11-27 15:32:22.078282+00
15	delivery	01a21da2-dbc0-77bc-8c45-e536912533dc	1	delivery.queued.v1	1	{"at": "2026-11-27T15:32:22.078068706Z", "kind": "recipient_verification", "formId": "01a21da2-dbbe-7109-81f6-3a800bd60362", "target": "fixture.example.test", "deliveryId": "01a21da2-dbc0-77bc-8c45-e536912533dc", "submissionId": "", "verificationId": "01a21da2-dbc0-7729-bfad-7aa068642b00"}	{"actor": {"id": "5a7740cf8a8c", "type": "session"}, "accountId": "01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b", "requestId": "req_3cb2afac613d6d4f499d698e"}	2026-11-27 15:32:22.078282+00
16	verification	01a21da2-dbc0-7729-bfad-7aa068642b00	2	verification.completed.v1	1	{"at": "2026-11-27T15:32:24.303031434Z"}	{"actor": {"id": "01a21da2-dbc0-7729-bfad-7aa068642b00", "type": "verification_link"}, "requestId": "req_7ac3c6c5a1443a1210b1d209"}	2026-11-27 15:32:24.30316+00
17	form	01a21da2-dbbe-7109-81f6-3a800bd60362	2	form.recipient_verified.v1	1	{"at": "2026-11-27T15:32:24.303031434Z", "recipientEmail": "signup-inbox@fixture.example.test"}	{"actor": {"id": "01a21da2-dbc0-7729-bfad-7aa068642b00", "type": "verification_link"}, "requestId": "req_7ac3c6c5a1443a1210b1d209"}	2026-11-27 15:32:24.30316+00
18	form	01a21da2-d3f7-7b96-bb34-aa1254474ed5	3	form.settings_changed.v1	1	{"at": "2026-11-27T15:32:24.30756563Z", "changes": [{"to": "Contact us", "from": "Contact", "field": "name"}, {"to": "New message from the website", "from": "", "field": "subjectDefault"}], "settings": {"name": "Contact us", "validation": {"fields": []}, "replyToMode": "submitter", "autoresponder": {"enabled": false}, "allowedDomains": ["www.example.com"], "recipientEmail": "contact-inbox@fixture.example.test", "replyToDefault": "", "subjectDefault": "New message from the website", "uploadsEnabled": false, "fromNameDefault": "Notifications", "redirectDefault": "", "allowedSenderIps": []}}	{"actor": {"id": "5a7740cf8a8c", "type": "session"}, "accountId": "01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b", "requestId": "req_70b35cba7d76ad7564080579"}	2026-11-27 15:32:24.30765+00
19	form	01a21da2-d3f7-7b96-bb34-aa1254474ed5	4	form.settings_changed.v1	1	{"at": "2026-11-27T15:32:24.31366955Z", "changes": [{"to": ["www.example.com", "example.com"], "from": ["www.example.com"], "field": "allowedDomains"}, {"to": "Website", "from": "Notifications", "field": "fromNameDefault"}], "settings": {"name": "Contact us", "validation": {"fields": []}, "replyToMode": "submitter", "autoresponder": {"enabled": false}, "allowedDomains": ["www.example.com", "example.com"], "recipientEmail": "contact-inbox@fixture.example.test", "replyToDefault": "", "subjectDefault": "New message from the website", "uploadsEnabled": false, "fromNameDefault": "Website", "redirectDefault": "", "allowedSenderIps": []}}	{"actor": {"id": "5a7740cf8a8c", "type": "session"}, "accountId": "01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b", "requestId": "req_6dcbc5fb476c4cdfa023e35d"}	2026-11-27 15:32:24.313758+00
20	delivery	01a21da2-dbc0-77bc-8c45-e536912533dc	2	delivery.succeeded.v1	1	{"at": "2026-11-27T15:32:24.300323925Z", "attempt": 1}	{"actor": {"id": "delivery-worker", "type": "system"}, "causationId": "01a21da2-dbc0-77bc-8c45-e536912533dc"}	2026-11-27 15:32:24.310395+00
21	form	01a21da2-dbbe-7109-81f6-3a800bd60362	3	form.settings_changed.v1	1	{"at": "2026-11-27T15:32:24.322400909Z", "changes": [{"to": "Newsletter sign-up", "from": "Newsletter", "field": "name"}], "settings": {"name": "Newsletter sign-up", "validation": {"fields": []}, "replyToMode": "submitter", "autoresponder": {"enabled": false}, "allowedDomains": [], "recipientEmail": "signup-inbox@fixture.example.test", "replyToDefault": "", "subjectDefault": "", "uploadsEnabled": false, "fromNameDefault": "Notifications", "redirectDefault": "", "allowedSenderIps": []}}	{"actor": {"id": "5a7740cf8a8c", "type": "session"}, "accountId": "01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b", "requestId": "req_db27099ab234e786c4e0200e"}	2026-11-27 15:32:24.322566+00
22	account	01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b	3	account.token_created.v1	1	{"at": "2026-11-27T15:32:24.334581818Z", "name": "upgrade fixture", "prefix": "fdw_GnWvLAUW", "scopes": ["forms:read", "forms:write"], "tokenId": "01a21da2-e48e-78de-88d9-b8b71b09c41c", "tokenHash": "2bb79e17508a158de66437ea66634bbc7a81d11d0b5e0b294b909a6774061129", "workspaceId": "01a21da2-ce4a-7c19-860e-777cc87c2d09"}	{"actor": {"id": "5a7740cf8a8c", "type": "session"}, "accountId": "01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b", "requestId": "req_88a7141528fdb76eaf2bb471"}	2026-11-27 15:32:24.334699+00
23	form	01a21da2-d3f7-7b96-bb34-aa1254474ed5	5	form.settings_changed.v1	1	{"at": "2026-11-27T15:32:24.364413298Z", "changes": [{"to": "Contact form: new message", "from": "New message from the website", "field": "subjectDefault"}], "settings": {"name": "Contact us", "validation": {"fields": []}, "replyToMode": "submitter", "autoresponder": {"enabled": false}, "allowedDomains": ["www.example.com", "example.com"], "recipientEmail": "contact-inbox@fixture.example.test", "replyToDefault": "", "subjectDefault": "Contact form: new message", "uploadsEnabled": false, "fromNameDefault": "Website", "redirectDefault": "", "allowedSenderIps": []}}	{"actor": {"id": "01a21da2-e48e-78de-88d9-b8b71b09c41c", "type": "token"}, "accountId": "01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b", "requestId": "req_6e1eb34512b2a68b2d2bc599"}	2026-11-27 15:32:24.364504+00
24	form	01a21da2-dbbe-7109-81f6-3a800bd60362	4	form.integration_configured.v1	1	{"at": "2026-11-27T15:32:24.370376785Z", "changes": [{"to": true, "from": null, "field": "integrations.webhook.enabled"}, {"to": "https://hooks.example.com/formd/leads", "from": null, "field": "integrations.webhook.targetUrl"}], "integration": {"type": "webhook", "enabled": true, "createdAt": "2026-11-27T15:32:24.370376785Z", "targetUrl": "https://hooks.example.com/formd/leads", "updatedAt": "2026-11-27T15:32:24.370376785Z"}}	{"actor": {"id": "5a7740cf8a8c", "type": "session"}, "accountId": "01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b", "requestId": "req_25e9a3e5d773fd6d8c7df16a"}	2026-11-27 15:32:24.370468+00
25	form	01a21da2-dbbe-7109-81f6-3a800bd60362	5	form.webhook_secret_issued.v1	1	{"at": "2026-11-27T15:32:24.370376785Z", "secretId": "01a21da2-e4b2-7c80-b1bd-cc13b31c9ab8", "secretPrefix": "whsec_kYud"}	{"actor": {"id": "5a7740cf8a8c", "type": "session"}, "accountId": "01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b", "requestId": "req_25e9a3e5d773fd6d8c7df16a"}	2026-11-27 15:32:24.370468+00
26	form	01a21da2-dbbe-7109-81f6-3a800bd60362	6	form.integration_configured.v1	1	{"at": "2026-11-27T15:32:24.37680345Z", "changes": [{"to": false, "from": true, "field": "integrations.webhook.enabled"}], "integration": {"type": "webhook", "enabled": false, "createdAt": "2026-11-27T15:32:24.370376785Z", "targetUrl": "https://hooks.example.com/formd/leads", "updatedAt": "2026-11-27T15:32:24.37680345Z", "secretPrefix": "whsec_kYud"}}	{"actor": {"id": "5a7740cf8a8c", "type": "session"}, "accountId": "01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b", "requestId": "req_84fd77de3c8b6bdb2e696382"}	2026-11-27 15:32:24.376925+00
27	submission	01a21da2-e5e4-7f16-b5af-037a74d1617d	1	submission.accepted.v1	1	{"at": "2026-11-27T15:32:24.676985319Z", "formId": "01a21da2-d3f7-7b96-bb34-aa1254474ed5", "requestId": "req_eb2caabc6e165be2a3ed9301", "deliveries": [{"id": "01a21da2-e5e4-7f22-9d8a-8555646eab5a", "kind": "email", "target": "fixture.example.test"}], "fieldNames": ["email", "message"], "valueHashes": {"email": "99b1aed8c051c296299f1585cea42c68", "message": "4044aeb43f47662df4a4a6d00f35b6e9"}, "submissionId": "01a21da2-e5e4-7f16-b5af-037a74d1617d"}	{"actor": {"id": "ip_ac53fdf0210daba341850d4581331145", "type": "submitter"}, "accountId": "01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b", "requestId": "req_eb2caabc6e165be2a3ed9301"}	2026-11-27 15:32:24.677194+00
28	submission	01a21da2-e604-77f0-a920-6af217b0bd86	1	submission.accepted.v1	1	{"at": "2026-11-27T15:32:24.708518261Z", "formId": "01a21da2-d3f7-7b96-bb34-aa1254474ed5", "requestId": "req_2408a0a65b2e55c9ca0d521d", "deliveries": [{"id": "01a21da2-e604-77fd-af07-af3d8585ae0d", "kind": "email", "target": "fixture.example.test"}], "fieldNames": ["email", "message"], "valueHashes": {"email": "99b1aed8c051c296299f1585cea42c68", "message": "d62ccc2ba4fa2846dfe0ffb1302c2aaa"}, "submissionId": "01a21da2-e604-77f0-a920-6af217b0bd86"}	{"actor": {"id": "ip_ac53fdf0210daba341850d4581331145", "type": "submitter"}, "accountId": "01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b", "requestId": "req_2408a0a65b2e55c9ca0d521d"}	2026-11-27 15:32:24.708581+00
29	submission	01a21da2-e611-7c81-905e-044776984728	1	submission.accepted.v1	1	{"at": "2026-11-27T15:32:24.721816336Z", "formId": "01a21da2-dbbe-7109-81f6-3a800bd60362", "requestId": "req_279d06256db69b4be0a6792f", "deliveries": [{"id": "01a21da2-e611-7caf-9e77-36ff3f8b4f18", "kind": "email", "target": "fixture.example.test"}], "fieldNames": ["email", "message"], "valueHashes": {"email": "73746f80bd8c830d8056af262ed38da4", "message": "de7c0c4dfca5c076a0c1164369ac8fdd"}, "submissionId": "01a21da2-e611-7c81-905e-044776984728"}	{"actor": {"id": "ip_802160cf57f77a420d9470a5abac4474", "type": "submitter"}, "accountId": "01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b", "requestId": "req_279d06256db69b4be0a6792f"}	2026-11-27 15:32:24.721882+00
\.


--
-- Data for Name: forms; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.forms (id, account_id, workspace_id, access_key_hash, access_key_prefix, settings, recipient_verified, version, created_at, updated_at, integrations) FROM stdin;
01a21da2-d3f7-7b96-bb34-aa1254474ed5	01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b	01a21da2-ce4a-7c19-860e-777cc87c2d09	\\xec280dbe3c621156eccbd94d51fc2c1e9e38bf48237d883fa5e8a302a1fee4bb	40311433	{"name": "Contact us", "validation": {"fields": []}, "replyToMode": "submitter", "autoresponder": {"enabled": false}, "allowedDomains": ["www.example.com", "example.com"], "recipientEmail": "contact-inbox@fixture.example.test", "replyToDefault": "", "subjectDefault": "Contact form: new message", "uploadsEnabled": false, "fromNameDefault": "Website", "redirectDefault": "", "allowedSenderIps": []}	t	5	2026-11-27 15:32:20.08776+00	2026-11-27 15:32:24.364413+00	[]
01a21da2-dbbe-7109-81f6-3a800bd60362	01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b	01a21da2-ce4a-7c19-860e-777cc87c2d09	\\xe4537a75ad2a3848adee36b5a58175e48e677983a7d8877d890b7c39fe790850	7fbd342b	{"name": "Newsletter sign-up", "validation": {"fields": []}, "replyToMode": "submitter", "autoresponder": {"enabled": false}, "allowedDomains": [], "recipientEmail": "signup-inbox@fixture.example.test", "replyToDefault": "", "subjectDefault": "", "uploadsEnabled": false, "fromNameDefault": "Notifications", "redirectDefault": "", "allowedSenderIps": []}	t	6	2026-11-27 15:32:22.078068+00	2026-11-27 15:32:24.376803+00	[{"type": "webhook", "enabled": false, "createdAt": "2026-11-27T15:32:24.370376785Z", "targetUrl": "https://hooks.example.com/formd/leads", "updatedAt": "2026-11-27T15:32:24.37680345Z", "secretPrefix": "whsec_kYud"}]
\.


--
-- Data for Name: goose_db_version; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.goose_db_version (id, version_id, is_applied, tstamp) FROM stdin;
1	0	t	2026-11-27 15:29:36.588596
2	100	t	2026-11-27 15:29:36.607256
\.


--
-- Data for Name: idempotency_keys; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.idempotency_keys (form_id, key, request_hash, response, redirect, created_at) FROM stdin;
\.


--
-- Data for Name: integration_codes; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.integration_codes (form_id, integration, code_hash, expires_at) FROM stdin;
\.


--
-- Data for Name: integration_test_calls; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.integration_test_calls (form_id, called_at) FROM stdin;
\.


--
-- Data for Name: password_reset_requests; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.password_reset_requests (address_hash, requested_at) FROM stdin;
\.


--
-- Data for Name: poisoned_messages; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.poisoned_messages (id, consumer_group, topic, message_uuid, payload, reason, created_at) FROM stdin;
\.


--
-- Data for Name: sessions; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.sessions (token_hash, account_id, created_at, expires_at) FROM stdin;
\\x5a7740cf8a8c2aabe8b84ea39720c952dd827759bd508d16384786830a03e812	01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b	2026-11-27 15:32:18.634661+00	2026-12-27 15:32:18.63451+00
\.


--
-- Data for Name: spent_challenges; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.spent_challenges (challenge, expires_at) FROM stdin;
\.


--
-- Data for Name: submission_payloads; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.submission_payloads (submission_id, form_id, wrapped_key, ciphertext, pending, created_at, key_id, keep_until) FROM stdin;
01a21da2-e5e4-7f16-b5af-037a74d1617d	01a21da2-d3f7-7b96-bb34-aa1254474ed5	\\x6dd08b46b9179fa457d4fa62d535d740c0c4233cf78a51c002baba093da23f71ecfdac953a7283cc645dc18ecf519cbb3b67d5a654f4d28c6d169270	\\x8d054845c1bcce62e61c418fb648e78d09859f7478c3185dc879f678e9ec2997be39c43acdce2957edcb5e0b34b263ef40f2db27ee17cef5d89c1170778af2a40970253062c86835e7f54eedc7801ca3017b0806250906a5fdc81600a2ef6406f028abaf4617312d64b1d1e6bdf4f38e69fa006d309130bd01de045c9b0a9de445491727d3a6ea18bc79f94a8081b3dfa519a77c88158b35c256fe06fc3f1770ae516fb714e8f0f43d12297e4f2f13aef3f4bf8c465f9638e619de7c77d2de25383fc6cc8b6cf4f7206235cf23e618003a9d274783a1e8772b016c6e09039cbed60890b071a52b35ad80045b6521002e981334e36d96a8dde0fb94be5cc91e6077dccfc3038e010656b5a92c1672f37e642a7e1d950170f6de680aa6dd600172f47339c3ba53a6e192791bb435a8f79b3b0b80c0e89194da09a8ebdf628adec444e8600e84016de2ae30361138cc296ee8a52e5225fad0ba14c7ff41d570d3c18abf62d23975eb04fb7305ba211d212834e37d39515a76682549ed2ccae6fb976a07e9477f3d7b948d2846efef7689e25de35829	1	2026-11-27 15:32:24.694946+00	bcf824e2	\N
01a21da2-e604-77f0-a920-6af217b0bd86	01a21da2-d3f7-7b96-bb34-aa1254474ed5	\\xaff3b66c912e3e6424be27183d1e06329d284e96f3be6f0fa92e32000501710f003bbcdd3c921532d22bef62fc12a8a044194f339075370461c5fee8	\\x65634e16bbadc3ee0fc1c406f6de4defb18461edecf6828ef0a7663f49c783c2fb99805c91b8e4edfc44f9be4e38167649e6e8c3ff26284cf19642300780ee6521ac0724c6f4958ed8f389fa652f85166f519b628d646e6a3e6c337987ad3fe1157552209593da9de1a176440ded294ada1bffc691627762bdc0ed6fa1c95a1bb7b5971f19fc7a3de74f059690c8c03fa0d1a85f1274bb40550e694bdb5ec3caaf925fde95c54563146bdedc14ed99389136becde3cce6b894df457f4bf30c2cb82fe48da9d2ff00f335b9209361ce542c97cbf0fb6ef934b357e05176252635e741dedeff1322ab45bb82b0f57a9b800207588206d26b43bd46dca402d6fabaf591344d2ebff37eb4052c82f135c2282b7dd05fbc0cce3c304903559a022fead1461f7b1f278a49dc81f80b274356c2078b5761cda1feaadd0af110e75d87a031cd728164bf82406ddc976e5ca784b22a1f934c4f8d070278e13046ef88b594b348dd53c797e62cc8fd23a421259fbb6c1c36de35b3ea72eb6b7aeeade9ab938e2aedf084de897751ee33b0f96e0c87b2bdf3cd	1	2026-11-27 15:32:24.711262+00	bcf824e2	\N
01a21da2-e611-7c81-905e-044776984728	01a21da2-dbbe-7109-81f6-3a800bd60362	\\xd728f2f8ae0eb218292eaa8d03fd8bb12e220b5f8fcdc0ef2b9711c07b8d3631a1a91f842d6f044860f011dea1f5c809b4375af9aa36b0591977acbc	\\x408a42ac731928c206bd82829df2b0d830a02142afbf2b7dd97ab0b7a6b92ec86ad42598763b7e07be8f88b0b5ade3fcb2e004e7e044f16d1ab4eb6566032f7ab2a2756b06587cd0f7fd37a63d40d0d3233a75835c5ea9047b012c6812930ed32c33d0b7af409b4553fe2d0b4bcaf385d9131ad77a62151cd5c66d342c3d693c9ac2e3eb2c7d04e16e3bfa233e879a53764d8c22130b410c375a2a2a4f4fae6f8ca9532bcd484b1ac82ab814fb07bcc378e62a38096d12729bf682b3ffaa29f926c142104ddc1440bb2be40656a7acd58028924b49ea7607ba201d38b478de486b488bf68c714298225d8579c544238d436fb248d1ad0bf1cb7ea6b8bebbea54dd5f4cf7af1da0ee5f54424447c0befecd0163c94c5948ee2fecd8dd4faa9c5f092cfb2e1851f84a21021cdecbebc0f705a1150d6dd1d4185b168f6181f7df90bf593ea971252a3beba439aa403e4fa5a6458e8261b3c4a6caa138ce725a1217cdff5a4eb121a9aca43babbec0d6fc4d9672514a0d12dd0c3856e4b66d29a797940bf23b1803eb328473586183b0892bfd1ef2eb6cef7aa37c3358638000853b96b77bf020ad8654d5e3	1	2026-11-27 15:32:24.722048+00	bcf824e2	\N
\.


--
-- Data for Name: submission_quota_usage; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.submission_quota_usage (account_id, month, used) FROM stdin;
01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b	2026-11-01	3
\.


--
-- Data for Name: telegram_updates; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.telegram_updates (singleton, next_update_id) FROM stdin;
t	0
\.


--
-- Data for Name: test_inbox; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.test_inbox (id, form_id, request_id, idempotency_key, received_at, expires_at, key_id, wrapped_key, ciphertext) FROM stdin;
\.


--
-- Data for Name: throttle_keys; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.throttle_keys (key, touched_at) FROM stdin;
\\xe13b9badc5b86064a53bac3eaee2735d76961d3ebbf7a0b00acc28254f404b4b	2026-11-27 15:32:20.087887+00
\\x33cf124c3aed9ccb0af6b636688bbdb0f07db9213ec79ab82aca8e61842ed98e	2026-11-27 15:32:22.078282+00
\\x386f221ec0c48d0ea7fdf746ed5d36325ab592b7dbe29f41d671fbaf933f2b54	2026-11-27 15:32:22.078282+00
\.


--
-- Data for Name: upload_object_chunks; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.upload_object_chunks (key, seq, data) FROM stdin;
\.


--
-- Data for Name: upload_objects; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.upload_objects (key, content_type, size, content, stored_at) FROM stdin;
\.


--
-- Data for Name: upload_reservations; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.upload_reservations (key, form_id, name, declared_type, size, reserved_at, expires_at, uploaded_at, scan, signature, detected, stored_size, scanned_at, consumed_by, consumed_at, links_expire) FROM stdin;
\.


--
-- Data for Name: verifications; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.verifications (id, kind, subject_id, email, token_hash, delivery_id, status, expires_at, created_at, account_id) FROM stdin;
01a21da2-ce52-70a2-9005-0a0daff35ec2	account	01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b	owner@fixture.example.test	\\x2bb136806f98ce1a4c5ec9dfc3f0a09f0968442099c8e03b63b3e13452f6e800	01a21da2-ce52-70da-a389-baa319c507fe	verified	2026-11-30 15:32:18.63451+00	2026-11-27 15:32:18.63451+00	01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b
01a21da2-d3fc-77d5-83fe-59ba64d822a0	recipient	01a21da2-d3f7-7b96-bb34-aa1254474ed5	contact-inbox@fixture.example.test	\\x814b7c29ac8c1265720be80751c9d9d1b3d20924a735806cbb46541ebfbf34c5	01a21da2-d3fc-7805-8d60-8daf18451fcd	verified	2026-11-30 15:32:20.08776+00	2026-11-27 15:32:20.08776+00	01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b
01a21da2-dbc0-7729-bfad-7aa068642b00	recipient	01a21da2-dbbe-7109-81f6-3a800bd60362	signup-inbox@fixture.example.test	\\xc74d6e74de4e8240c5f35446c6c860a0654bfa78f4edb338510a0c4986360fad	01a21da2-dbc0-77bc-8c45-e536912533dc	verified	2026-11-30 15:32:22.078068+00	2026-11-27 15:32:22.078068+00	01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b
\.


--
-- Data for Name: watermill_account; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.watermill_account ("offset", uuid, created_at, payload, metadata, transaction_id) FROM stdin;
1	d626f4de-2559-4a09-bfbc-b3c4537a6307	2026-11-27 15:32:18.634661	\\x7b2273747265616d54797065223a226163636f756e74222c2273747265616d4964223a2230316132316461322d636534612d373761342d623966372d366339343130666664633962222c2276657273696f6e223a312c2274797065223a226163636f756e742e726567697374657265642e7631222c22736368656d6156657273696f6e223a312c227265636f726465644174223a22323032362d31312d32375431353a33323a31382e3633343739303235395a227d	{"event_type":"account.registered.v1"}	956
6	f87aafb3-9242-4e0a-8149-cb9a78ff7e7c	2026-11-27 15:32:20.078044	\\x7b2273747265616d54797065223a226163636f756e74222c2273747265616d4964223a2230316132316461322d636534612d373761342d623966372d366339343130666664633962222c2276657273696f6e223a322c2274797065223a226163636f756e742e656d61696c5f76657269666965642e7631222c22736368656d6156657273696f6e223a312c227265636f726465644174223a22323032362d31312d32375431353a33323a32302e3037383137303933395a227d	{"event_type":"account.email_verified.v1"}	973
22	603b3ba8-b627-4f1e-acab-70d0022d0db4	2026-11-27 15:32:24.334637	\\x7b2273747265616d54797065223a226163636f756e74222c2273747265616d4964223a2230316132316461322d636534612d373761342d623966372d366339343130666664633962222c2276657273696f6e223a332c2274797065223a226163636f756e742e746f6b656e5f637265617465642e7631222c22736368656d6156657273696f6e223a312c227265636f726465644174223a22323032362d31312d32375431353a33323a32342e33333436393939385a227d	{"event_type":"account.token_created.v1"}	1031
\.


--
-- Data for Name: watermill_delivery; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.watermill_delivery ("offset", uuid, created_at, payload, metadata, transaction_id) FROM stdin;
20	90b8143c-6317-41ae-b915-0d8151d5daa4	2026-11-27 15:32:24.320586	\\x7b2273747265616d54797065223a2264656c6976657279222c2273747265616d4964223a2230316132316461322d646263302d373762632d386334352d653533363931323533336463222c2276657273696f6e223a322c2274797065223a2264656c69766572792e7375636365656465642e7631222c22736368656d6156657273696f6e223a312c227265636f726465644174223a22323032362d31312d32375431353a33323a32342e3331303339353534385a227d	{"event_type":"delivery.succeeded.v1"}	1026
\.


--
-- Data for Name: watermill_form; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.watermill_form ("offset", uuid, created_at, payload, metadata, transaction_id) FROM stdin;
7	6b5b89be-9717-4051-94ff-c1d3bc579b51	2026-11-27 15:32:20.087809	\\x7b2273747265616d54797065223a22666f726d222c2273747265616d4964223a2230316132316461322d643366372d376239362d626233342d616131323534343734656435222c2276657273696f6e223a312c2274797065223a22666f726d2e637265617465642e7631222c22736368656d6156657273696f6e223a312c227265636f726465644174223a22323032362d31312d32375431353a33323a32302e3038373838373235355a227d	{"event_type":"form.created.v1"}	975
12	fa051432-5309-4e20-b86c-925bf94aba7e	2026-11-27 15:32:22.07252	\\x7b2273747265616d54797065223a22666f726d222c2273747265616d4964223a2230316132316461322d643366372d376239362d626233342d616131323534343734656435222c2276657273696f6e223a322c2274797065223a22666f726d2e726563697069656e745f76657269666965642e7631222c22736368656d6156657273696f6e223a312c227265636f726465644174223a22323032362d31312d32375431353a33323a32322e3037323539363835325a227d	{"event_type":"form.recipient_verified.v1"}	999
13	b6103be4-3987-4ad2-8eb8-1f987ca4f15f	2026-11-27 15:32:22.078206	\\x7b2273747265616d54797065223a22666f726d222c2273747265616d4964223a2230316132316461322d646262652d373130392d383166362d336138303062643630333632222c2276657273696f6e223a312c2274797065223a22666f726d2e637265617465642e7631222c22736368656d6156657273696f6e223a312c227265636f726465644174223a22323032362d31312d32375431353a33323a32322e3037383238323233375a227d	{"event_type":"form.created.v1"}	1001
17	e3c90ba0-730d-48e7-afad-06fe3d5118ea	2026-11-27 15:32:24.303068	\\x7b2273747265616d54797065223a22666f726d222c2273747265616d4964223a2230316132316461322d646262652d373130392d383166362d336138303062643630333632222c2276657273696f6e223a322c2274797065223a22666f726d2e726563697069656e745f76657269666965642e7631222c22736368656d6156657273696f6e223a312c227265636f726465644174223a22323032362d31312d32375431353a33323a32342e3330333136303638375a227d	{"event_type":"form.recipient_verified.v1"}	1023
18	8f67e8d0-ba05-40bb-96d7-371c5ff19ce1	2026-11-27 15:32:24.3076	\\x7b2273747265616d54797065223a22666f726d222c2273747265616d4964223a2230316132316461322d643366372d376239362d626233342d616131323534343734656435222c2276657273696f6e223a332c2274797065223a22666f726d2e73657474696e67735f6368616e6765642e7631222c22736368656d6156657273696f6e223a312c227265636f726465644174223a22323032362d31312d32375431353a33323a32342e3330373635303037385a227d	{"event_type":"form.settings_changed.v1"}	1024
19	8841dac5-2256-4fd8-a365-93adeac158bd	2026-11-27 15:32:24.313708	\\x7b2273747265616d54797065223a22666f726d222c2273747265616d4964223a2230316132316461322d643366372d376239362d626233342d616131323534343734656435222c2276657273696f6e223a342c2274797065223a22666f726d2e73657474696e67735f6368616e6765642e7631222c22736368656d6156657273696f6e223a312c227265636f726465644174223a22323032362d31312d32375431353a33323a32342e3331333735383835375a227d	{"event_type":"form.settings_changed.v1"}	1025
21	d6db5b57-0aa4-47c2-bb25-23cfca446959	2026-11-27 15:32:24.322517	\\x7b2273747265616d54797065223a22666f726d222c2273747265616d4964223a2230316132316461322d646262652d373130392d383166362d336138303062643630333632222c2276657273696f6e223a332c2274797065223a22666f726d2e73657474696e67735f6368616e6765642e7631222c22736368656d6156657273696f6e223a312c227265636f726465644174223a22323032362d31312d32375431353a33323a32342e3332323536363531395a227d	{"event_type":"form.settings_changed.v1"}	1027
23	ea05f4dd-e122-44b0-8f90-61de326039b0	2026-11-27 15:32:24.364441	\\x7b2273747265616d54797065223a22666f726d222c2273747265616d4964223a2230316132316461322d643366372d376239362d626233342d616131323534343734656435222c2276657273696f6e223a352c2274797065223a22666f726d2e73657474696e67735f6368616e6765642e7631222c22736368656d6156657273696f6e223a312c227265636f726465644174223a22323032362d31312d32375431353a33323a32342e3336343530343232385a227d	{"event_type":"form.settings_changed.v1"}	1033
24	02eace44-0f0e-44fd-a35f-03240e1ab4fd	2026-11-27 15:32:24.370407	\\x7b2273747265616d54797065223a22666f726d222c2273747265616d4964223a2230316132316461322d646262652d373130392d383166362d336138303062643630333632222c2276657273696f6e223a342c2274797065223a22666f726d2e696e746567726174696f6e5f636f6e666967757265642e7631222c22736368656d6156657273696f6e223a312c227265636f726465644174223a22323032362d31312d32375431353a33323a32342e3337303436383934385a227d	{"event_type":"form.integration_configured.v1"}	1034
25	e7bce829-e0fc-44d3-8bae-29ec0ab58a0c	2026-11-27 15:32:24.370407	\\x7b2273747265616d54797065223a22666f726d222c2273747265616d4964223a2230316132316461322d646262652d373130392d383166362d336138303062643630333632222c2276657273696f6e223a352c2274797065223a22666f726d2e776562686f6f6b5f7365637265745f6973737565642e7631222c22736368656d6156657273696f6e223a312c227265636f726465644174223a22323032362d31312d32375431353a33323a32342e3337303436383934385a227d	{"event_type":"form.webhook_secret_issued.v1"}	1034
26	2f849af3-f248-4821-96f9-8d17444e7822	2026-11-27 15:32:24.376849	\\x7b2273747265616d54797065223a22666f726d222c2273747265616d4964223a2230316132316461322d646262652d373130392d383166362d336138303062643630333632222c2276657273696f6e223a362c2274797065223a22666f726d2e696e746567726174696f6e5f636f6e666967757265642e7631222c22736368656d6156657273696f6e223a312c227265636f726465644174223a22323032362d31312d32375431353a33323a32342e3337363932353034385a227d	{"event_type":"form.integration_configured.v1"}	1035
\.


--
-- Data for Name: watermill_offsets_account; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.watermill_offsets_account (consumer_group, offset_acked, last_processed_transaction_id) FROM stdin;
\.


--
-- Data for Name: watermill_offsets_delivery; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.watermill_offsets_delivery (consumer_group, offset_acked, last_processed_transaction_id) FROM stdin;
delivery-queue	15	1001
\.


--
-- Data for Name: watermill_offsets_form; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.watermill_offsets_form (consumer_group, offset_acked, last_processed_transaction_id) FROM stdin;
\.


--
-- Data for Name: watermill_offsets_submission; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.watermill_offsets_submission (consumer_group, offset_acked, last_processed_transaction_id) FROM stdin;
\.


--
-- Data for Name: watermill_offsets_verification; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.watermill_offsets_verification (consumer_group, offset_acked, last_processed_transaction_id) FROM stdin;
\.


--
-- Data for Name: watermill_submission; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.watermill_submission ("offset", uuid, created_at, payload, metadata, transaction_id) FROM stdin;
27	ff957529-a417-4e15-af58-cc7826b0cee0	2026-11-27 15:32:24.694946	\\x7b2273747265616d54797065223a227375626d697373696f6e222c2273747265616d4964223a2230316132316461322d653565342d376631362d623561662d303337613734643136313764222c2276657273696f6e223a312c2274797065223a227375626d697373696f6e2e61636365707465642e7631222c22736368656d6156657273696f6e223a312c227265636f726465644174223a22323032362d31312d32375431353a33323a32342e3637373139343430325a227d	{"event_type":"submission.accepted.v1"}	1041
28	e4ae53ce-fb43-428a-9c28-1f1fbafbdc49	2026-11-27 15:32:24.711262	\\x7b2273747265616d54797065223a227375626d697373696f6e222c2273747265616d4964223a2230316132316461322d653630342d373766302d613932302d366166323137623062643836222c2276657273696f6e223a312c2274797065223a227375626d697373696f6e2e61636365707465642e7631222c22736368656d6156657273696f6e223a312c227265636f726465644174223a22323032362d31312d32375431353a33323a32342e37303835383138325a227d	{"event_type":"submission.accepted.v1"}	1044
29	3b4ab109-0752-4362-bab7-b3f1d606cffd	2026-11-27 15:32:24.722048	\\x7b2273747265616d54797065223a227375626d697373696f6e222c2273747265616d4964223a2230316132316461322d653631312d376338312d393035652d303434373736393834373238222c2276657273696f6e223a312c2274797065223a227375626d697373696f6e2e61636365707465642e7631222c22736368656d6156657273696f6e223a312c227265636f726465644174223a22323032362d31312d32375431353a33323a32342e3732313838323237395a227d	{"event_type":"submission.accepted.v1"}	1047
\.


--
-- Data for Name: watermill_verification; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.watermill_verification ("offset", uuid, created_at, payload, metadata, transaction_id) FROM stdin;
2	fdab643e-57b2-4a7e-ac56-0fee7966e0c1	2026-11-27 15:32:18.634661	\\x7b2273747265616d54797065223a22766572696669636174696f6e222c2273747265616d4964223a2230316132316461322d636535322d373061322d393030352d306130646166663335656332222c2276657273696f6e223a312c2274797065223a22766572696669636174696f6e2e7265717565737465642e7631222c22736368656d6156657273696f6e223a312c227265636f726465644174223a22323032362d31312d32375431353a33323a31382e3633343739303235395a227d	{"event_type":"verification.requested.v1"}	956
5	af54448b-f148-414a-86f6-9a7f1b1d759d	2026-11-27 15:32:20.078044	\\x7b2273747265616d54797065223a22766572696669636174696f6e222c2273747265616d4964223a2230316132316461322d636535322d373061322d393030352d306130646166663335656332222c2276657273696f6e223a322c2274797065223a22766572696669636174696f6e2e636f6d706c657465642e7631222c22736368656d6156657273696f6e223a312c227265636f726465644174223a22323032362d31312d32375431353a33323a32302e3037383137303933395a227d	{"event_type":"verification.completed.v1"}	973
8	0c2958ee-bd16-4295-b95d-4db0701b1e00	2026-11-27 15:32:20.087809	\\x7b2273747265616d54797065223a22766572696669636174696f6e222c2273747265616d4964223a2230316132316461322d643366632d373764352d383366652d353962613634643832326130222c2276657273696f6e223a312c2274797065223a22766572696669636174696f6e2e7265717565737465642e7631222c22736368656d6156657273696f6e223a312c227265636f726465644174223a22323032362d31312d32375431353a33323a32302e3038373838373235355a227d	{"event_type":"verification.requested.v1"}	975
11	fcf80600-2242-4760-9334-37eb35e8df01	2026-11-27 15:32:22.07252	\\x7b2273747265616d54797065223a22766572696669636174696f6e222c2273747265616d4964223a2230316132316461322d643366632d373764352d383366652d353962613634643832326130222c2276657273696f6e223a322c2274797065223a22766572696669636174696f6e2e636f6d706c657465642e7631222c22736368656d6156657273696f6e223a312c227265636f726465644174223a22323032362d31312d32375431353a33323a32322e3037323539363835325a227d	{"event_type":"verification.completed.v1"}	999
14	ac7bae67-749b-40b4-af21-209fb23636a8	2026-11-27 15:32:22.078206	\\x7b2273747265616d54797065223a22766572696669636174696f6e222c2273747265616d4964223a2230316132316461322d646263302d373732392d626661642d376161303638363432623030222c2276657273696f6e223a312c2274797065223a22766572696669636174696f6e2e7265717565737465642e7631222c22736368656d6156657273696f6e223a312c227265636f726465644174223a22323032362d31312d32375431353a33323a32322e3037383238323233375a227d	{"event_type":"verification.requested.v1"}	1001
16	3fd16468-cdcd-4378-88f2-a70f7ba06a48	2026-11-27 15:32:24.303068	\\x7b2273747265616d54797065223a22766572696669636174696f6e222c2273747265616d4964223a2230316132316461322d646263302d373732392d626661642d376161303638363432623030222c2276657273696f6e223a322c2274797065223a22766572696669636174696f6e2e636f6d706c657465642e7631222c22736368656d6156657273696f6e223a312c227265636f726465644174223a22323032362d31312d32375431353a33323a32342e3330333136303638375a227d	{"event_type":"verification.completed.v1"}	1023
\.


--
-- Data for Name: webhook_secrets; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.webhook_secrets (id, form_id, prefix, key_id, wrapped_key, ciphertext, created_at, expires_at) FROM stdin;
01a21da2-e4b2-7c80-b1bd-cc13b31c9ab8	01a21da2-dbbe-7109-81f6-3a800bd60362	whsec_kYud	bcf824e2	\\x4ee0230630d19b7250e4b113f45aac5669f89767a17c291ceb4f5d2393404e06c83f190bcc51c5360ac8ad8aa931f947aa7d57252b2849146ec0ddf6	\\x35d21263fecd0fa5cc39b7c5b8691e007ceaf0a272d9498c05b26dc731a9b7c663e7f705317033947b2ede884d7a8670b52e8d923bc87f6b5d262ded5e7b693dcb0cec8b3d40cabfccfc31c9c84f	2026-11-27 15:32:24.370376+00	\N
\.


--
-- Data for Name: workspace_tokens; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.workspace_tokens (id, account_id, workspace_id, name, prefix, token_hash, scopes, created_at, expires_at, last_used_at) FROM stdin;
01a21da2-e48e-78de-88d9-b8b71b09c41c	01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b	01a21da2-ce4a-7c19-860e-777cc87c2d09	upgrade fixture	fdw_GnWvLAUW	\\x2bb79e17508a158de66437ea66634bbc7a81d11d0b5e0b294b909a6774061129	{forms:read,forms:write}	2026-11-27 15:32:24.334581+00	\N	2026-11-27 15:32:24.359842+00
\.


--
-- Data for Name: workspaces; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.workspaces (id, account_id, name, created_at) FROM stdin;
01a21da2-ce4a-7c19-860e-777cc87c2d09	01a21da2-ce4a-77a4-b9f7-6c9410ffdc9b	Default	2026-11-27 15:32:18.63451+00
\.


--
-- Name: events_global_position_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.events_global_position_seq', 29, true);


--
-- Name: goose_db_version_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.goose_db_version_id_seq', 2, true);


--
-- Name: poisoned_messages_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.poisoned_messages_id_seq', 1, false);


--
-- Name: watermill_form_offset_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.watermill_form_offset_seq', 29, true);


--
-- Name: accounts accounts_email_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.accounts
    ADD CONSTRAINT accounts_email_key UNIQUE (email);


--
-- Name: accounts accounts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.accounts
    ADD CONSTRAINT accounts_pkey PRIMARY KEY (id);


--
-- Name: autoresponder_sends autoresponder_sends_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.autoresponder_sends
    ADD CONSTRAINT autoresponder_sends_pkey PRIMARY KEY (form_id, address_hash);


--
-- Name: captcha_secrets captcha_secrets_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.captcha_secrets
    ADD CONSTRAINT captcha_secrets_pkey PRIMARY KEY (form_id);


--
-- Name: deliveries deliveries_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deliveries
    ADD CONSTRAINT deliveries_pkey PRIMARY KEY (id);


--
-- Name: delivery_workers delivery_workers_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.delivery_workers
    ADD CONSTRAINT delivery_workers_pkey PRIMARY KEY (instance_id);


--
-- Name: entitlements entitlements_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.entitlements
    ADD CONSTRAINT entitlements_pkey PRIMARY KEY (account_id, feature);


--
-- Name: events events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (stream_id, version);


--
-- Name: forms forms_access_key_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.forms
    ADD CONSTRAINT forms_access_key_hash_key UNIQUE (access_key_hash);


--
-- Name: forms forms_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.forms
    ADD CONSTRAINT forms_pkey PRIMARY KEY (id);


--
-- Name: goose_db_version goose_db_version_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.goose_db_version
    ADD CONSTRAINT goose_db_version_pkey PRIMARY KEY (id);


--
-- Name: idempotency_keys idempotency_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.idempotency_keys
    ADD CONSTRAINT idempotency_keys_pkey PRIMARY KEY (form_id, key);


--
-- Name: integration_codes integration_codes_code_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.integration_codes
    ADD CONSTRAINT integration_codes_code_hash_key UNIQUE (code_hash);


--
-- Name: integration_codes integration_codes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.integration_codes
    ADD CONSTRAINT integration_codes_pkey PRIMARY KEY (form_id, integration);


--
-- Name: poisoned_messages poisoned_messages_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.poisoned_messages
    ADD CONSTRAINT poisoned_messages_pkey PRIMARY KEY (id);


--
-- Name: sessions sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_pkey PRIMARY KEY (token_hash);


--
-- Name: spent_challenges spent_challenges_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.spent_challenges
    ADD CONSTRAINT spent_challenges_pkey PRIMARY KEY (challenge);


--
-- Name: submission_payloads submission_payloads_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submission_payloads
    ADD CONSTRAINT submission_payloads_pkey PRIMARY KEY (submission_id);


--
-- Name: submission_quota_usage submission_quota_usage_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submission_quota_usage
    ADD CONSTRAINT submission_quota_usage_pkey PRIMARY KEY (account_id, month);


--
-- Name: telegram_updates telegram_updates_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.telegram_updates
    ADD CONSTRAINT telegram_updates_pkey PRIMARY KEY (singleton);


--
-- Name: test_inbox test_inbox_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.test_inbox
    ADD CONSTRAINT test_inbox_pkey PRIMARY KEY (id);


--
-- Name: throttle_keys throttle_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.throttle_keys
    ADD CONSTRAINT throttle_keys_pkey PRIMARY KEY (key);


--
-- Name: upload_object_chunks upload_object_chunks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.upload_object_chunks
    ADD CONSTRAINT upload_object_chunks_pkey PRIMARY KEY (key, seq);


--
-- Name: upload_objects upload_objects_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.upload_objects
    ADD CONSTRAINT upload_objects_pkey PRIMARY KEY (key);


--
-- Name: upload_reservations upload_reservations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.upload_reservations
    ADD CONSTRAINT upload_reservations_pkey PRIMARY KEY (key);


--
-- Name: verifications verifications_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.verifications
    ADD CONSTRAINT verifications_pkey PRIMARY KEY (id);


--
-- Name: verifications verifications_token_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.verifications
    ADD CONSTRAINT verifications_token_hash_key UNIQUE (token_hash);


--
-- Name: watermill_account watermill_account_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.watermill_account
    ADD CONSTRAINT watermill_account_pkey PRIMARY KEY (transaction_id, "offset");


--
-- Name: watermill_delivery watermill_delivery_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.watermill_delivery
    ADD CONSTRAINT watermill_delivery_pkey PRIMARY KEY (transaction_id, "offset");


--
-- Name: watermill_form watermill_form_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.watermill_form
    ADD CONSTRAINT watermill_form_pkey PRIMARY KEY (transaction_id, "offset");


--
-- Name: watermill_offsets_account watermill_offsets_account_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.watermill_offsets_account
    ADD CONSTRAINT watermill_offsets_account_pkey PRIMARY KEY (consumer_group);


--
-- Name: watermill_offsets_delivery watermill_offsets_delivery_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.watermill_offsets_delivery
    ADD CONSTRAINT watermill_offsets_delivery_pkey PRIMARY KEY (consumer_group);


--
-- Name: watermill_offsets_form watermill_offsets_form_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.watermill_offsets_form
    ADD CONSTRAINT watermill_offsets_form_pkey PRIMARY KEY (consumer_group);


--
-- Name: watermill_offsets_submission watermill_offsets_submission_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.watermill_offsets_submission
    ADD CONSTRAINT watermill_offsets_submission_pkey PRIMARY KEY (consumer_group);


--
-- Name: watermill_offsets_verification watermill_offsets_verification_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.watermill_offsets_verification
    ADD CONSTRAINT watermill_offsets_verification_pkey PRIMARY KEY (consumer_group);


--
-- Name: watermill_submission watermill_submission_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.watermill_submission
    ADD CONSTRAINT watermill_submission_pkey PRIMARY KEY (transaction_id, "offset");


--
-- Name: watermill_verification watermill_verification_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.watermill_verification
    ADD CONSTRAINT watermill_verification_pkey PRIMARY KEY (transaction_id, "offset");


--
-- Name: webhook_secrets webhook_secrets_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_secrets
    ADD CONSTRAINT webhook_secrets_pkey PRIMARY KEY (id);


--
-- Name: workspace_tokens workspace_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.workspace_tokens
    ADD CONSTRAINT workspace_tokens_pkey PRIMARY KEY (id);


--
-- Name: workspace_tokens workspace_tokens_token_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.workspace_tokens
    ADD CONSTRAINT workspace_tokens_token_hash_key UNIQUE (token_hash);


--
-- Name: workspaces workspaces_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.workspaces
    ADD CONSTRAINT workspaces_pkey PRIMARY KEY (id);


--
-- Name: deliveries_claimable; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deliveries_claimable ON public.deliveries USING btree (next_attempt_at) WHERE (status = ANY (ARRAY['queued'::text, 'retrying'::text]));


--
-- Name: deliveries_log; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deliveries_log ON public.deliveries USING btree (form_id, created_at DESC, id DESC) WHERE (form_id IS NOT NULL);


--
-- Name: deliveries_submission; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deliveries_submission ON public.deliveries USING btree (submission_id);


--
-- Name: events_global_position; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_global_position ON public.events USING brin (global_position);


--
-- Name: forms_account; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX forms_account ON public.forms USING btree (account_id, created_at);


--
-- Name: idempotency_keys_created; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idempotency_keys_created ON public.idempotency_keys USING btree (created_at);


--
-- Name: integration_test_calls_form; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX integration_test_calls_form ON public.integration_test_calls USING btree (form_id, called_at);


--
-- Name: password_reset_requests_address; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX password_reset_requests_address ON public.password_reset_requests USING btree (address_hash, requested_at);


--
-- Name: password_reset_requests_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX password_reset_requests_at ON public.password_reset_requests USING btree (requested_at);


--
-- Name: sessions_account; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sessions_account ON public.sessions USING btree (account_id);


--
-- Name: spent_challenges_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX spent_challenges_expiry ON public.spent_challenges USING btree (expires_at);


--
-- Name: submission_payloads_kept; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submission_payloads_kept ON public.submission_payloads USING btree (keep_until) WHERE (keep_until IS NOT NULL);


--
-- Name: test_inbox_by_form; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX test_inbox_by_form ON public.test_inbox USING btree (form_id, received_at DESC);


--
-- Name: test_inbox_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX test_inbox_expiry ON public.test_inbox USING btree (expires_at);


--
-- Name: upload_reservations_unused; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX upload_reservations_unused ON public.upload_reservations USING btree (expires_at) WHERE (consumed_by IS NULL);


--
-- Name: upload_reservations_used; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX upload_reservations_used ON public.upload_reservations USING btree (links_expire) WHERE (consumed_by IS NOT NULL);


--
-- Name: verifications_account; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX verifications_account ON public.verifications USING btree (account_id, created_at DESC) WHERE (kind = 'recipient'::text);


--
-- Name: verifications_email; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX verifications_email ON public.verifications USING btree (lower(email), created_at DESC);


--
-- Name: verifications_subject; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX verifications_subject ON public.verifications USING btree (subject_id, created_at DESC);


--
-- Name: webhook_secrets_form; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_secrets_form ON public.webhook_secrets USING btree (form_id, created_at DESC);


--
-- Name: workspace_tokens_workspace; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX workspace_tokens_workspace ON public.workspace_tokens USING btree (workspace_id, created_at);


--
-- Name: workspaces_account; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX workspaces_account ON public.workspaces USING btree (account_id);


--
-- Name: events events_append_only; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER events_append_only BEFORE DELETE OR UPDATE ON public.events FOR EACH ROW EXECUTE FUNCTION public.events_are_append_only();


--
-- Name: events events_no_truncate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON public.events FOR EACH STATEMENT EXECUTE FUNCTION public.events_are_append_only();


--
-- Name: captcha_secrets captcha_secrets_form_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.captcha_secrets
    ADD CONSTRAINT captcha_secrets_form_id_fkey FOREIGN KEY (form_id) REFERENCES public.forms(id);


--
-- Name: entitlements entitlements_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.entitlements
    ADD CONSTRAINT entitlements_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id);


--
-- Name: forms forms_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.forms
    ADD CONSTRAINT forms_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id);


--
-- Name: forms forms_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.forms
    ADD CONSTRAINT forms_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);


--
-- Name: integration_codes integration_codes_form_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.integration_codes
    ADD CONSTRAINT integration_codes_form_id_fkey FOREIGN KEY (form_id) REFERENCES public.forms(id);


--
-- Name: integration_test_calls integration_test_calls_form_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.integration_test_calls
    ADD CONSTRAINT integration_test_calls_form_id_fkey FOREIGN KEY (form_id) REFERENCES public.forms(id);


--
-- Name: sessions sessions_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id);


--
-- Name: submission_quota_usage submission_quota_usage_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submission_quota_usage
    ADD CONSTRAINT submission_quota_usage_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id);


--
-- Name: test_inbox test_inbox_form_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.test_inbox
    ADD CONSTRAINT test_inbox_form_id_fkey FOREIGN KEY (form_id) REFERENCES public.forms(id);


--
-- Name: upload_object_chunks upload_object_chunks_key_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.upload_object_chunks
    ADD CONSTRAINT upload_object_chunks_key_fkey FOREIGN KEY (key) REFERENCES public.upload_objects(key) ON DELETE CASCADE;


--
-- Name: upload_reservations upload_reservations_form_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.upload_reservations
    ADD CONSTRAINT upload_reservations_form_id_fkey FOREIGN KEY (form_id) REFERENCES public.forms(id);


--
-- Name: webhook_secrets webhook_secrets_form_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_secrets
    ADD CONSTRAINT webhook_secrets_form_id_fkey FOREIGN KEY (form_id) REFERENCES public.forms(id);


--
-- Name: workspace_tokens workspace_tokens_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.workspace_tokens
    ADD CONSTRAINT workspace_tokens_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id);


--
-- Name: workspace_tokens workspace_tokens_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.workspace_tokens
    ADD CONSTRAINT workspace_tokens_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id);


--
-- Name: workspaces workspaces_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.workspaces
    ADD CONSTRAINT workspaces_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id);


--
-- PostgreSQL database dump complete
--


