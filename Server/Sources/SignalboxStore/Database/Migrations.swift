/// The schema, as numbered steps applied in order at start. Plain SQL that SQLite and PostgreSQL both run, and
/// `postgresSteps` for what only PostgreSQL has.
enum Migrations {
    static let steps: [[String]] = [
        [
            """
            CREATE TABLE apps (
                app_id TEXT PRIMARY KEY, bundle_id TEXT NOT NULL, team_id TEXT NOT NULL, key_id TEXT NOT NULL,
                environment TEXT NOT NULL, sealed_private_key TEXT NOT NULL, sealed_device_secret TEXT NOT NULL,
                server_key_hash TEXT NOT NULL UNIQUE, created_at BIGINT NOT NULL)
            """,
            """
            CREATE TABLE installations (
                app_id TEXT NOT NULL, installation_id TEXT NOT NULL, user_id TEXT, channels TEXT NOT NULL,
                environment TEXT NOT NULL, created_at BIGINT NOT NULL, last_seen_at BIGINT NOT NULL,
                PRIMARY KEY (app_id, installation_id))
            """,
            "CREATE INDEX installations_user ON installations (app_id, user_id)",
            """
            CREATE TABLE installation_channels (
                app_id TEXT NOT NULL, channel TEXT NOT NULL, installation_id TEXT NOT NULL,
                PRIMARY KEY (app_id, channel, installation_id))
            """,
            """
            CREATE TABLE widget_tokens (
                app_id TEXT NOT NULL, installation_id TEXT NOT NULL, push_token TEXT NOT NULL,
                token_seen_at BIGINT NOT NULL, PRIMARY KEY (app_id, installation_id))
            """,
            """
            CREATE TABLE widgets (
                app_id TEXT NOT NULL, installation_id TEXT NOT NULL, position INTEGER NOT NULL, kind TEXT NOT NULL,
                family TEXT NOT NULL, configuration TEXT NOT NULL, PRIMARY KEY (app_id, installation_id, position))
            """,
            "CREATE INDEX widgets_kind ON widgets (app_id, kind)",
            """
            CREATE TABLE controls (
                app_id TEXT NOT NULL, installation_id TEXT NOT NULL, position INTEGER NOT NULL, kind TEXT NOT NULL,
                configuration TEXT NOT NULL, push_token TEXT NOT NULL, token_seen_at BIGINT NOT NULL,
                PRIMARY KEY (app_id, installation_id, position))
            """,
            "CREATE INDEX controls_kind ON controls (app_id, kind)",
            "CREATE INDEX controls_token ON controls (app_id, push_token)",
            """
            CREATE TABLE file_provider_tokens (
                app_id TEXT NOT NULL, installation_id TEXT NOT NULL, push_token TEXT NOT NULL,
                token_seen_at BIGINT NOT NULL, PRIMARY KEY (app_id, installation_id))
            """,
            """
            CREATE TABLE file_provider_domains (
                app_id TEXT NOT NULL, installation_id TEXT NOT NULL, domain_id TEXT NOT NULL, replicated INTEGER NOT NULL,
                PRIMARY KEY (app_id, installation_id, domain_id))
            """,
            """
            CREATE TABLE enumerators (
                app_id TEXT NOT NULL, installation_id TEXT NOT NULL, domain_id TEXT NOT NULL, container_id TEXT NOT NULL,
                expires_at BIGINT NOT NULL, PRIMARY KEY (app_id, installation_id, domain_id, container_id))
            """,
            "CREATE INDEX enumerators_expiry ON enumerators (expires_at)",
        ],
        [
            """
            CREATE TABLE events (
                event_id TEXT PRIMARY KEY, app_id TEXT NOT NULL, target TEXT NOT NULL, audience TEXT NOT NULL,
                state TEXT NOT NULL, fan_out_cursor TEXT, matched BIGINT NOT NULL, coalesced BIGINT NOT NULL,
                delivered BIGINT NOT NULL, failed BIGINT NOT NULL, pruned BIGINT NOT NULL, created_at BIGINT NOT NULL)
            """,
            "CREATE INDEX events_state ON events (state)",
            """
            CREATE TABLE outbox (
                push_id TEXT PRIMARY KEY, app_id TEXT NOT NULL, event_id TEXT NOT NULL, installation_id TEXT NOT NULL,
                token TEXT NOT NULL, kind TEXT NOT NULL, environment TEXT NOT NULL, payload TEXT NOT NULL,
                state TEXT NOT NULL, attempts INTEGER NOT NULL, next_attempt_at BIGINT NOT NULL,
                event_created_at BIGINT NOT NULL, absorbed INTEGER NOT NULL DEFAULT 0)
            """,
            "CREATE UNIQUE INDEX outbox_pending ON outbox (app_id, token, payload) WHERE state = 'pending'",
            "CREATE INDEX outbox_due ON outbox (state, next_attempt_at)",
            """
            CREATE TABLE outbox_absorbed (push_id TEXT NOT NULL, event_id TEXT NOT NULL, app_id TEXT NOT NULL,
                PRIMARY KEY (push_id, event_id))
            """,
            // Fan-out asks "does this installation have a control/widget of these kinds": index the whole question.
            "DROP INDEX controls_kind",
            "CREATE INDEX controls_kind ON controls (app_id, kind, installation_id)",
            "DROP INDEX widgets_kind",
            "CREATE INDEX widgets_kind ON widgets (app_id, kind, installation_id)",
            // Channel rows are found by installation too (re-registration, deletion), not only by channel.
            "CREATE INDEX installation_channels_installation ON installation_channels (app_id, installation_id)",
            "CREATE INDEX widget_tokens_token ON widget_tokens (app_id, push_token)",
            "CREATE INDEX file_provider_tokens_token ON file_provider_tokens (app_id, push_token)",
            "CREATE TABLE push_intervals (app_id TEXT NOT NULL, kind TEXT NOT NULL, seconds INTEGER NOT NULL, PRIMARY KEY (app_id, kind))",
            """
            CREATE TABLE token_last_sent (
                app_id TEXT NOT NULL, token TEXT NOT NULL, kind TEXT NOT NULL, sent_at BIGINT NOT NULL, PRIMARY KEY (app_id, token, kind))
            """,
            """
            CREATE TABLE suspect_tokens (
                app_id TEXT NOT NULL, token TEXT NOT NULL, strikes INTEGER NOT NULL, PRIMARY KEY (app_id, token))
            """,
        ],
        [
            // Device-secret rotation keeps the previous secret until its grace period ends.
            "ALTER TABLE apps ADD COLUMN previous_sealed_device_secret TEXT",
            "ALTER TABLE apps ADD COLUMN previous_device_secret_expires_at BIGINT",
            // How far ahead a device JWT's exp may be (seconds).
            "ALTER TABLE apps ADD COLUMN device_token_lifetime INTEGER NOT NULL DEFAULT 86400",
        ],
        [
            // Why an event's fan-out was given up (state `failed`).
            "ALTER TABLE events ADD COLUMN failure_reason TEXT",
            // The claim takes turns between apps: the apps with pending pushes and each app's due pushes in
            // order, one seek each. It replaces `outbox_due` (the same columns with app_id between), so a push
            // still costs one index besides the key and `outbox_pending`.
            "CREATE INDEX outbox_pending_app ON outbox (state, app_id, next_attempt_at)",
            "DROP INDEX outbox_due",
            // Retention: done and failed events by age.
            "CREATE INDEX events_created ON events (state, created_at)",
        ],
        [
            // Claims have an owner (one process) and a lease: an instance completes only its own claims, and
            // another takes a claim over once its lease has ended (the owner crashed).
            "ALTER TABLE outbox ADD COLUMN claimed_by TEXT",
            "ALTER TABLE outbox ADD COLUMN lease_until BIGINT",
            // One provider token per signing key for every instance (sealed; the issue time in milliseconds).
            """
            CREATE TABLE provider_tokens (
                team_id TEXT NOT NULL, key_id TEXT NOT NULL, fingerprint TEXT NOT NULL, sealed_token TEXT NOT NULL,
                issued_at BIGINT NOT NULL, PRIMARY KEY (team_id, key_id, fingerprint))
            """,
        ],
        [
            // The client's revision per registration (`installation`, `widgets`, `controls`, `file-provider`,
            // `enumerator/{domain}/{container}`): an older snapshot that arrives late is refused.
            """
            CREATE TABLE registration_revisions (
                app_id TEXT NOT NULL, installation_id TEXT NOT NULL, resource TEXT NOT NULL, revision BIGINT NOT NULL,
                PRIMARY KEY (app_id, installation_id, resource))
            """,
        ],
        [
            // The delivery log: one line per push attempt, bounded per app by age and count (pruned periodically).
            """
            CREATE TABLE delivery_log (
                app_id TEXT NOT NULL, token TEXT NOT NULL, push_type TEXT NOT NULL, event_id TEXT, attempt INTEGER NOT NULL,
                outcome TEXT NOT NULL, status INTEGER, reason TEXT, apns_id TEXT, logged_at BIGINT NOT NULL)
            """,
            "CREATE INDEX delivery_log_app ON delivery_log (app_id, logged_at)",
            "CREATE INDEX delivery_log_token ON delivery_log (app_id, token, logged_at)",
            "CREATE INDEX delivery_log_event ON delivery_log (event_id)",
            // An app's events newest first (the event list, paged).
            "CREATE INDEX events_app ON events (app_id, created_at)",
        ],
        [
            // A large fan-out on PostgreSQL is cut into ranges of installation ids that several instances plan at
            // once (`FanOutRanges`); 0 ranges: one cursor, `fan_out_cursor`.
            "ALTER TABLE events ADD COLUMN fan_out_ranges INTEGER NOT NULL DEFAULT 0",
            """
            CREATE TABLE event_ranges (
                event_id TEXT NOT NULL, position INTEGER NOT NULL, app_id TEXT NOT NULL, fan_out_cursor TEXT NOT NULL,
                upper_bound TEXT, done INTEGER NOT NULL, PRIMARY KEY (event_id, position))
            """,
        ],
        [
            // A token's delivery lines are found through its installation: an event's answers arrive in installation
            // order, so that index grows in place, where one by token took a random page per line. Only the lines
            // that are not `delivered` (failures, retries: what finds a dead token) and direct pushes, which have
            // no installation, are indexed by token.
            "ALTER TABLE delivery_log ADD COLUMN installation_id TEXT",
            "DROP INDEX delivery_log_token",
            "CREATE INDEX delivery_log_installation ON delivery_log (app_id, installation_id, logged_at)",
            "CREATE INDEX delivery_log_token ON delivery_log (app_id, token, logged_at) WHERE outcome <> 'delivered' OR installation_id IS NULL",
        ],
        [
            // A recording's run of many answers of one event that share all but their token, apns-id and installation
            // (`LogRun.packed`) is one row, its lines a JSON array, so a large fan-out adds no row or index entry per
            // push. A lookup by installation scans the app's runs (few: each holds many lines) for those whose range
            // of installation ids holds it, compared bytewise.
            """
            CREATE TABLE delivery_runs (
                app_id TEXT NOT NULL, push_type TEXT NOT NULL, event_id TEXT NOT NULL, logged_at BIGINT NOT NULL,
                outcome TEXT NOT NULL, status INTEGER, reason TEXT, attempt INTEGER NOT NULL,
                first_installation TEXT NOT NULL, last_installation TEXT NOT NULL, line_count INTEGER NOT NULL, lines TEXT NOT NULL)
            """,
            "CREATE INDEX delivery_runs_app ON delivery_runs (app_id, logged_at)",
            "CREATE INDEX delivery_runs_event ON delivery_runs (event_id, logged_at)",
            // A user's installations in id order (the inspector's user search) from the index alone: with only
            // `(app_id, user_id)`, SQLite reads the app's installations in key order to skip the sort.
            "DROP INDEX installations_user",
            "CREATE INDEX installations_user ON installations (app_id, user_id, installation_id)",
        ],
        [
            // The dashboard's sessions, shared by every instance and kept across restarts: a hash of the cookie's
            // secret, who signed in (`owner` empty for the admin key, else the app id, with its server key's hash
            // at sign-in) and when the session ends. Expired rows are removed at each sign-in.
            """
            CREATE TABLE dashboard_sessions (
                secret_hash TEXT PRIMARY KEY, owner TEXT NOT NULL, server_key_hash TEXT,
                created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL)
            """,
            "CREATE INDEX dashboard_sessions_owner ON dashboard_sessions (owner, created_at)",
            "CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions (expires_at)",
        ],
        [
            // `Idempotency-Key` on POST events and pushes: a key per app, its request's digest and, once answered,
            // the answer (status NULL: the request is still running); kept 24 hours, pruned by age.
            """
            CREATE TABLE idempotency_keys (
                app_id TEXT NOT NULL, idempotency_key TEXT NOT NULL, fingerprint TEXT NOT NULL, status INTEGER, answer TEXT,
                created_at BIGINT NOT NULL, PRIMARY KEY (app_id, idempotency_key))
            """,
            "CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at)",
            // An app's APNs key for one environment only (Apple issues keys restricted to sandbox or production);
            // without one, the app's own key in `apps` serves that environment.
            """
            CREATE TABLE app_signing_keys (
                app_id TEXT NOT NULL, environment TEXT NOT NULL, team_id TEXT NOT NULL, key_id TEXT NOT NULL,
                sealed_private_key TEXT NOT NULL, PRIMARY KEY (app_id, environment))
            """,
        ],
        [
            // Signed webhooks: an app's endpoints (the secret sealed like the app's; `event_types` a list between
            // commas, empty for every kind), its lifecycle events (kept for replay by id, which sorts by time) and
            // the durable queue of deliveries, claimed with an owner and a lease like the outbox.
            """
            CREATE TABLE webhook_endpoints (
                endpoint_id TEXT PRIMARY KEY, app_id TEXT NOT NULL, url TEXT NOT NULL, event_types TEXT NOT NULL,
                sealed_secret TEXT NOT NULL, previous_sealed_secret TEXT, previous_secret_expires_at BIGINT,
                created_at BIGINT NOT NULL, last_success_at BIGINT, last_error TEXT, last_error_at BIGINT)
            """,
            "CREATE INDEX webhook_endpoints_app ON webhook_endpoints (app_id, created_at)",
            """
            CREATE TABLE lifecycle_events (
                event_id TEXT PRIMARY KEY, app_id TEXT NOT NULL, event_type TEXT NOT NULL, body TEXT NOT NULL,
                occurred_at BIGINT NOT NULL)
            """,
            "CREATE INDEX lifecycle_events_app ON lifecycle_events (app_id, event_id)",
            "CREATE INDEX lifecycle_events_age ON lifecycle_events (occurred_at)",
            """
            CREATE TABLE webhook_deliveries (
                delivery_id TEXT PRIMARY KEY, endpoint_id TEXT NOT NULL, event_id TEXT NOT NULL, app_id TEXT NOT NULL,
                attempts INTEGER NOT NULL, next_attempt_at BIGINT NOT NULL, claimed_by TEXT, lease_until BIGINT)
            """,
            "CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at)",
            "CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id)",
            "CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id)",
        ],
        [
            // Reload receipts: a widget or control kind that reloaded on a device, matched to the delivered push it
            // answered (`event_id`, NULL when none) with that push's delivery and its event's acceptance time. A
            // push answers one receipt per kind (NULLs are distinct, so unmatched rows never collide).
            """
            CREATE TABLE reloads (
                app_id TEXT NOT NULL, installation_id TEXT NOT NULL, push_type TEXT NOT NULL, kind TEXT NOT NULL, event_id TEXT,
                reloaded_at BIGINT NOT NULL, delivered_at BIGINT, event_created_at BIGINT, recorded_at BIGINT NOT NULL)
            """,
            "CREATE UNIQUE INDEX reloads_push ON reloads (app_id, installation_id, push_type, kind, event_id)",
            "CREATE INDEX reloads_app ON reloads (app_id, recorded_at)",
            "CREATE INDEX reloads_age ON reloads (recorded_at)",
        ],
        [
            // An installation's receipts, newest first: the per-installation cap drops the oldest beyond it.
            "CREATE INDEX reloads_installation ON reloads (app_id, installation_id, recorded_at, reloaded_at)",
        ],
        [
            // How many pushes of the event a push absorbed (`Coalescing.Carried`): one event can reach one token
            // through several installations in pages planned apart, and each of those pushes is owed an outcome.
            "ALTER TABLE outbox_absorbed ADD COLUMN pushes INTEGER NOT NULL DEFAULT 1",
        ],
        [
            // The pushes a fan-out page hands off, one row per page (`Handoff`): `settled` has a '1' for each push
            // whose result is recorded, `pushes` is a JSON array of [installation id, token, environment, payload].
            """
            CREATE TABLE handoffs (
                handoff_id TEXT PRIMARY KEY, app_id TEXT NOT NULL, event_id TEXT NOT NULL, kind TEXT NOT NULL,
                event_created_at BIGINT NOT NULL, claimed_by TEXT NOT NULL, lease_until BIGINT NOT NULL,
                settled TEXT NOT NULL, pushes TEXT NOT NULL)
            """,
        ],
        // PostgreSQL only (`postgresSteps`): the large text columns compressed with LZ4.
        [],
    ]

    /// Statements PostgreSQL runs after the step of the same version (SQLite has no equivalent).
    static let postgresSteps: [Int: [String]] = [
        // A delivery run's lines and a handoff's pushes are tens of kilobytes of hex and UUIDs, compressed when
        // stored: LZ4 costs far less than the default PGLZ (docs/performance.md). A PostgreSQL built without LZ4,
        // or older than 14, keeps PGLZ. Keyed by the version number itself, so later steps do not move it.
        18: [
            """
            DO $$ BEGIN
                EXECUTE 'ALTER TABLE delivery_runs ALTER COLUMN lines SET COMPRESSION lz4';
                EXECUTE 'ALTER TABLE handoffs ALTER COLUMN pushes SET COMPRESSION lz4';
            EXCEPTION WHEN feature_not_supported OR syntax_error THEN NULL;
            END $$
            """,
        ],
    ]

    /// Tables that hang off an app besides installations.
    static let appTables = [
        "events", "event_ranges", "outbox", "outbox_absorbed", "handoffs", "suspect_tokens", "push_intervals", "token_last_sent", "delivery_log", "delivery_runs",
        "idempotency_keys", "app_signing_keys", "webhook_endpoints", "lifecycle_events", "webhook_deliveries",
        "reloads",
    ]

    /// Tables that hang off an installation, cleaned when it goes.
    static let installationTables = [
        "installation_channels", "widget_tokens", "widgets", "controls", "file_provider_tokens",
        "file_provider_domains", "enumerators", "registration_revisions",
    ]
}
