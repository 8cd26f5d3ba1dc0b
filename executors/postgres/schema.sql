-- lock4go PostgreSQL schema, protocol version 1.
--
-- {{t}} is the table prefix with its schema ("lock4go_" by default), {{i}}
-- the prefix without schema (index names), {{c}} the prefix of the wake
-- channels. docs/postgres.md describes the protocol; every function runs as
-- one autocommit statement and takes the row lock of the key's row in
-- {{t}}locks before it reads or writes anything else of the key, so the
-- statements of one key are serialized and see each other's effects.
--
-- Every function the executor calls first makes its transaction durable:
-- it commits synchronously whatever the session's synchronous_commit (the
-- server's, database's or role's choice), so a lock granted or renewed,
-- and the token sequence's advance, are on disk (and on the synchronous
-- standbys, if any) before the statement answers. off and local become on;
-- remote_write, on and remote_apply stay. The value in force when the
-- transaction commits decides, so the setting is the transaction's own
-- (set_config's is_local): a function's SET clause would be undone when
-- the function returns, before the commit, and a session's SET would
-- outlive the statement (through a transaction pooler, into another
-- client's transactions).

-- Fencing tokens: one sequence for every key, so a token outlives the row
-- it was drawn for and tokens grow across takeovers and restarts.
CREATE SEQUENCE IF NOT EXISTS {{t}}token AS bigint;
-- Arrival order in wait queues.
CREATE SEQUENCE IF NOT EXISTS {{t}}arrival AS bigint;

-- One row per key in use: held by a writer (a lock, a write lock), claimed
-- by a woken waiter, or holding read locks, permits or waiters. owner is
-- the writer's owner value or 'lock4go:claim:<member>', NULL when none;
-- expires_at ends the writer's lease or the claim, and is 'infinity' while
-- shares hold the key (they end by their own rows), so that a held key's
-- row never looks expired.
CREATE TABLE IF NOT EXISTS {{t}}locks (
	key        text PRIMARY KEY,
	owner      text,
	token      bigint NOT NULL DEFAULT 0,
	expires_at timestamptz NOT NULL
) WITH (fillfactor = 80);

-- Read locks and permits: kind is 'r' or 'p<n>' (a permit of a semaphore
-- of n); a claim a release gave to a waiting executor has the owner
-- 'lock4go:claim:<member>'.
CREATE TABLE IF NOT EXISTS {{t}}shares (
	key        text NOT NULL,
	owner      text NOT NULL,
	kind       text NOT NULL,
	token      bigint NOT NULL DEFAULT 0,
	expires_at timestamptz NOT NULL,
	PRIMARY KEY (key, owner)
) WITH (fillfactor = 80);

-- Wait queues: one entry per key, executor (member) and kind ('w' for a
-- writer), in arrival order; an entry expires unless its waiter's attempts
-- refresh it. A hand-off (serve) keeps the entry of the executor it
-- served, passed over, until its waiter takes its claim, which deletes the
-- entry: its arrival becomes a served one, below -2e18 (a fresh arrival
-- less 4e18). A served waiter whose claim lapsed (a stopped or throttled
-- process) so keeps its place; its next attempt moves the entry up by
-- 2e18 (resumed: still below every arrival, so it has the next turn).
CREATE TABLE IF NOT EXISTS {{t}}waiters (
	key        text NOT NULL,
	member     text NOT NULL,
	kind       text NOT NULL,
	arrival    bigint NOT NULL,
	expires_at timestamptz NOT NULL,
	PRIMARY KEY (key, member, kind)
);
CREATE INDEX IF NOT EXISTS {{i}}waiters_arrival ON {{t}}waiters (key, arrival);

-- Owners whose acquisition's reply was lost: their statements, should they
-- still land, take nothing.
CREATE TABLE IF NOT EXISTS {{t}}voids (
	owner      text PRIMARY KEY,
	expires_at timestamptz NOT NULL
);

-- shared_until returns the expires_at of k's row when no writer holds or
-- claims it: 'infinity' while live shares hold k, '-infinity' otherwise.
CREATE OR REPLACE FUNCTION {{t}}shared_until(k text) RETURNS timestamptz
LANGUAGE sql AS $$
	SELECT CASE WHEN EXISTS (SELECT 1 FROM {{t}}shares s WHERE s.key = k AND s.expires_at > clock_timestamp())
		THEN 'infinity'::timestamptz ELSE '-infinity'::timestamptz END
$$;

-- lock_key locks the row of k, creating a free one if there is none (held
-- by shares, should live ones have lost their row: deleted by hand).
CREATE OR REPLACE FUNCTION {{t}}lock_key(k text) RETURNS {{t}}locks
LANGUAGE plpgsql AS $$
DECLARE
	r {{t}}locks;
BEGIN
	LOOP
		SELECT * INTO r FROM {{t}}locks WHERE key = k FOR UPDATE;
		IF FOUND THEN
			RETURN r;
		END IF;
		INSERT INTO {{t}}locks (key, expires_at) VALUES (k, {{t}}shared_until(k))
		ON CONFLICT (key) DO NOTHING RETURNING * INTO r;
		IF FOUND THEN
			RETURN r;
		END IF;
	END LOOP;
END $$;

-- serve hands k, when no writer holds or claims it, to the head of its
-- queue: a writer gets a claim on the row (once no share is left), readers
-- and permit waiters claims among the shares while they fit; each served
-- executor is told on its channel ('w' or 's', then the key) and its entry
-- becomes a served one. It passes served entries over, stops at the first
-- waiter that does not fit, marks the row of a key left with shares as
-- theirs, and deletes the row of a key left with nothing. A claim that
-- lapsed is handed on like a released lock. The caller holds the row's
-- lock.
CREATE OR REPLACE FUNCTION {{t}}serve(k text, claim bigint) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	now timestamptz := clock_timestamp();
	r   {{t}}locks;
	w   record;
	n   int;
	sk  text;
BEGIN
	SELECT * INTO r FROM {{t}}locks WHERE key = k;
	IF NOT FOUND OR (r.owner IS NOT NULL AND r.expires_at > now) THEN
		RETURN;
	END IF;
	DELETE FROM {{t}}shares WHERE key = k AND expires_at <= now;
	DELETE FROM {{t}}waiters WHERE key = k AND expires_at <= now;
	SELECT count(*), min(kind) INTO n, sk FROM {{t}}shares WHERE key = k;
	FOR w IN SELECT member, kind FROM {{t}}waiters
		WHERE key = k AND arrival >= -2000000000000000000 ORDER BY arrival
	LOOP
		IF w.kind = 'w' THEN
			EXIT WHEN n > 0;
			UPDATE {{t}}locks SET owner = 'lock4go:claim:' || w.member,
				expires_at = now + claim * interval '1 millisecond' WHERE key = k;
			UPDATE {{t}}waiters SET arrival = nextval('{{t}}arrival') - 4000000000000000000
			WHERE key = k AND member = w.member AND kind = w.kind;
			PERFORM pg_notify('{{c}}' || w.member, 'w' || k);
			RETURN;
		END IF;
		EXIT WHEN n > 0 AND sk <> w.kind;
		EXIT WHEN w.kind <> 'r' AND n >= substr(w.kind, 2)::int;
		INSERT INTO {{t}}shares (key, owner, kind, expires_at)
		VALUES (k, 'lock4go:claim:' || w.member, w.kind, now + claim * interval '1 millisecond')
		ON CONFLICT (key, owner) DO UPDATE SET kind = excluded.kind, expires_at = excluded.expires_at;
		UPDATE {{t}}waiters SET arrival = nextval('{{t}}arrival') - 4000000000000000000
		WHERE key = k AND member = w.member AND kind = w.kind;
		PERFORM pg_notify('{{c}}' || w.member, 's' || k);
		n := n + 1;
		sk := w.kind;
	END LOOP;
	IF n > 0 THEN
		IF r.owner IS NOT NULL OR r.expires_at <> 'infinity' THEN
			UPDATE {{t}}locks SET owner = NULL, expires_at = 'infinity' WHERE key = k;
		END IF;
	ELSIF NOT EXISTS (SELECT 1 FROM {{t}}waiters WHERE key = k) THEN
		DELETE FROM {{t}}locks WHERE key = k;
	ELSIF r.owner IS NOT NULL THEN
		UPDATE {{t}}locks SET owner = NULL WHERE key = k;
	END IF;
END $$;

-- lock_turn locks the row of k for an attempt of the executor m ('' for
-- one that does not wait) of kind sk, as lock_key does, after setting
-- right what a stalled waiter left: a claim that lapsed, other than m's
-- own, is handed on (serve), so that the attempt finds k as a release
-- would have left it, not free for whoever asks first; and m's served
-- entry of kind sk, whose claim lapsed or which it is about to take, is
-- resumed: the next turn is m's.
CREATE OR REPLACE FUNCTION {{t}}lock_turn(k text, m text, sk text, claim bigint) RETURNS {{t}}locks
LANGUAGE plpgsql AS $$
DECLARE
	r {{t}}locks;
BEGIN
	r := {{t}}lock_key(k);
	IF starts_with(r.owner, 'lock4go:claim:') AND r.expires_at <= clock_timestamp()
		AND r.owner <> 'lock4go:claim:' || m THEN
		PERFORM {{t}}serve(k, claim);
		r := {{t}}lock_key(k);
	END IF;
	IF m <> '' THEN
		UPDATE {{t}}waiters SET arrival = arrival + 2000000000000000000
		WHERE key = k AND member = m AND kind = sk AND arrival < -2000000000000000000;
	END IF;
	RETURN r;
END $$;

-- join queues member m for k as kind sk, keeping its place if it is
-- queued already, and refreshes its entry's expiry.
CREATE OR REPLACE FUNCTION {{t}}join(k text, m text, sk text, qttl bigint) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO {{t}}waiters (key, member, kind, arrival, expires_at)
	VALUES (k, m, sk, nextval('{{t}}arrival'), clock_timestamp() + qttl * interval '1 millisecond')
	ON CONFLICT (key, member, kind) DO UPDATE SET expires_at = excluded.expires_at;
END $$;

-- still_queued reports, without a lock or a write, whether the waiting
-- executor m still stands in k's queue (for at least half its entry's
-- life, not served) while another owner holds k: its attempt then has
-- nothing to do. A release that commits after this read serves the queue
-- and tells m.
CREATE OR REPLACE FUNCTION {{t}}still_queued(k text, o text, m text, qttl bigint) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
	RETURN EXISTS (
		SELECT 1 FROM {{t}}locks l
		WHERE l.key = k AND l.owner IS NOT NULL AND l.owner <> o
			AND l.owner <> 'lock4go:claim:' || m AND l.expires_at > clock_timestamp()
	) AND EXISTS (
		SELECT 1 FROM {{t}}waiters w
		WHERE w.key = k AND w.member = m AND w.kind = 'w' AND w.arrival >= -2000000000000000000
			AND w.expires_at > clock_timestamp() + qttl / 2 * interval '1 millisecond'
	);
END $$;

-- acquire takes k for the owner o with a lease of ttl ms and returns the
-- token; 0 when another owner holds it and m is '' (no wait); -2 when o
-- was voided; -3 when k is busy and the executor m (waiting) is queued;
-- -4 when k is in use as a semaphore. A woken executor m takes its claim.
-- queued says that m may still stand in k's queue (an earlier attempt
-- joined it and none took k since): still_queued is tried first.
CREATE OR REPLACE FUNCTION {{t}}acquire(k text, o text, ttl bigint, m text, qttl bigint,
	claim bigint, queued boolean) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
	r    {{t}}locks;
	now  timestamptz;
	t    bigint;
	sk   text;
	busy boolean;
BEGIN
	IF current_setting('synchronous_commit') IN ('off', 'local') THEN
		PERFORM set_config('synchronous_commit', 'on', true); -- durable: see above
	END IF;
	IF queued AND {{t}}still_queued(k, o, m, qttl) THEN
		RETURN -3;
	END IF;
	INSERT INTO {{t}}locks (key, owner, expires_at) VALUES (k, o, 'infinity')
	ON CONFLICT (key) DO NOTHING;
	IF FOUND AND EXISTS (SELECT 1 FROM {{t}}shares WHERE key = k) THEN
		-- Shares whose key's row was deleted by hand: the new row is made
		-- theirs, and k is decided on as any key in use, below.
		UPDATE {{t}}locks SET owner = NULL, expires_at = {{t}}shared_until(k) WHERE key = k;
	ELSIF FOUND THEN
		-- k was free, with no share (they exist only with its row).
		IF EXISTS (SELECT 1 FROM {{t}}voids WHERE owner = o) THEN
			DELETE FROM {{t}}locks WHERE key = k;
			RETURN -2;
		END IF;
		-- The token is drawn once the row is ours: a token drawn before
		-- the insert could be below the one of a holder that came and went
		-- meanwhile.
		UPDATE {{t}}locks SET token = nextval('{{t}}token'),
			expires_at = clock_timestamp() + ttl * interval '1 millisecond'
		WHERE key = k RETURNING token INTO t;
		RETURN t;
	END IF;
	r := {{t}}lock_turn(k, m, 'w', claim);
	IF EXISTS (SELECT 1 FROM {{t}}voids WHERE owner = o) THEN
		PERFORM {{t}}serve(k, claim);
		RETURN -2;
	END IF;
	now := clock_timestamp();
	IF r.owner = o AND r.expires_at > now THEN
		RETURN r.token; -- this very acquisition, sent again
	END IF;
	busy := r.owner IS NOT NULL AND r.expires_at > now
		AND (m = '' OR r.owner <> 'lock4go:claim:' || m);
	IF NOT busy THEN
		DELETE FROM {{t}}shares WHERE key = k AND expires_at <= now;
		SELECT kind INTO sk FROM {{t}}shares WHERE key = k LIMIT 1;
		IF FOUND AND sk <> 'r' THEN
			RETURN -4;
		END IF;
		busy := FOUND;
	END IF;
	IF busy THEN
		IF m = '' THEN
			RETURN 0;
		END IF;
		PERFORM {{t}}join(k, m, 'w', qttl);
		RETURN -3;
	END IF;
	UPDATE {{t}}locks SET owner = o, token = nextval('{{t}}token'),
		expires_at = clock_timestamp() + ttl * interval '1 millisecond'
	WHERE key = k RETURNING token INTO t;
	IF m <> '' THEN
		DELETE FROM {{t}}waiters WHERE key = k AND member = m AND kind = 'w';
	END IF;
	RETURN t;
END $$;

-- acquire_share takes a read lock (sk 'r') or a permit of a semaphore of
-- n (sk 'p<n>') of k for the owner o and returns the token, or the codes
-- of acquire. A read lock is granted while no writer holds or claims k
-- and nobody waits before it; a permit while fewer than n are out and
-- nobody waits before it; either when the executor m holds a claim.
CREATE OR REPLACE FUNCTION {{t}}acquire_share(k text, o text, ttl bigint, m text, qttl bigint,
	sk text, n int, claim bigint) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
	r       {{t}}locks;
	now     timestamptz;
	t       bigint;
	cnt     int;
	cur     text;
	writer  boolean;
	free    boolean;
	head    record;
BEGIN
	IF current_setting('synchronous_commit') IN ('off', 'local') THEN
		PERFORM set_config('synchronous_commit', 'on', true); -- durable: see above
	END IF;
	r := {{t}}lock_turn(k, m, sk, claim);
	IF EXISTS (SELECT 1 FROM {{t}}voids WHERE owner = o) THEN
		PERFORM {{t}}serve(k, claim);
		RETURN -2;
	END IF;
	now := clock_timestamp();
	SELECT token INTO t FROM {{t}}shares WHERE key = k AND owner = o AND expires_at > now;
	IF FOUND THEN
		RETURN t; -- this very acquisition, sent again
	END IF;
	writer := r.owner IS NOT NULL AND r.expires_at > now;
	DELETE FROM {{t}}shares WHERE key = k AND expires_at <= now;
	SELECT count(*), min(kind) INTO cnt, cur FROM {{t}}shares WHERE key = k;
	IF (cnt > 0 AND cur <> sk) OR (sk <> 'r' AND writer) THEN
		PERFORM {{t}}serve(k, claim);
		RETURN -4;
	END IF;
	free := false;
	IF m <> '' THEN
		DELETE FROM {{t}}shares WHERE key = k AND owner = 'lock4go:claim:' || m;
		free := FOUND;
	END IF;
	IF NOT free THEN
		free := CASE WHEN sk = 'r' THEN NOT writer ELSE cnt < n END;
		IF free THEN
			SELECT member, kind INTO head FROM {{t}}waiters
			WHERE key = k AND expires_at > now AND arrival >= -2000000000000000000
			ORDER BY arrival LIMIT 1;
			free := NOT FOUND OR (head.member = m AND head.kind = sk);
		END IF;
	END IF;
	IF NOT free THEN
		IF m = '' THEN
			PERFORM {{t}}serve(k, claim);
			RETURN 0;
		END IF;
		PERFORM {{t}}join(k, m, sk, qttl);
		RETURN -3;
	END IF;
	IF m <> '' THEN
		DELETE FROM {{t}}waiters WHERE key = k AND member = m AND kind = sk;
	END IF;
	-- serve, below, makes the row the shares' (an expired writer or claim
	-- gone).
	INSERT INTO {{t}}shares (key, owner, kind, token, expires_at)
	VALUES (k, o, sk, nextval('{{t}}token'), clock_timestamp() + ttl * interval '1 millisecond')
	RETURNING token INTO t;
	PERFORM {{t}}serve(k, claim);
	RETURN t;
END $$;

-- release frees k if o holds it (a lock or a share), hands it on (serve)
-- and returns 1, or 2 when it handed the lock to the releasing executor m
-- itself (which wakes its waiter without waiting for the notification);
-- it returns 0 when o held nothing, or held a lease that had expired
-- (which it removes all the same).
CREATE OR REPLACE FUNCTION {{t}}release(k text, o text, claim bigint, m text) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
	e timestamptz;
	t bigint;
BEGIN
	IF current_setting('synchronous_commit') IN ('off', 'local') THEN
		PERFORM set_config('synchronous_commit', 'on', true); -- durable: see above
	END IF;
	DELETE FROM {{t}}locks WHERE key = k AND owner = o RETURNING expires_at, token INTO e, t;
	IF FOUND THEN
		-- A writer's row holds no share; waiters need the row back.
		IF EXISTS (SELECT 1 FROM {{t}}waiters WHERE key = k) THEN
			INSERT INTO {{t}}locks (key, token, expires_at) VALUES (k, t, '-infinity');
			PERFORM {{t}}serve(k, claim);
			IF e > clock_timestamp() AND m <> '' AND EXISTS (SELECT 1 FROM {{t}}locks
				WHERE key = k AND owner = 'lock4go:claim:' || m) THEN
				RETURN 2;
			END IF;
		END IF;
	ELSE
		IF NOT EXISTS (SELECT 1 FROM {{t}}shares WHERE key = k AND owner = o) THEN
			RETURN 0;
		END IF;
		PERFORM {{t}}lock_key(k); -- back, if it was deleted by hand
		DELETE FROM {{t}}shares WHERE key = k AND owner = o RETURNING expires_at INTO e;
		PERFORM {{t}}serve(k, claim);
	END IF;
	RETURN CASE WHEN e > clock_timestamp() THEN 1 ELSE 0 END;
END $$;

-- void is the clean-up of an acquisition by o whose reply was lost: it
-- marks o void for vttl ms, so that its statement takes nothing should it
-- land later, then frees what o holds of k. It returns 1 when o held k.
CREATE OR REPLACE FUNCTION {{t}}void(k text, o text, vttl bigint, claim bigint) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
	held boolean;
BEGIN
	IF current_setting('synchronous_commit') IN ('off', 'local') THEN
		PERFORM set_config('synchronous_commit', 'on', true); -- durable: see above
	END IF;
	INSERT INTO {{t}}voids (owner, expires_at)
	VALUES (o, clock_timestamp() + vttl * interval '1 millisecond')
	ON CONFLICT (owner) DO UPDATE SET expires_at = excluded.expires_at;
	PERFORM {{t}}lock_key(k);
	UPDATE {{t}}locks SET owner = NULL WHERE key = k AND owner = o;
	held := FOUND;
	DELETE FROM {{t}}shares WHERE key = k AND owner = o;
	held := held OR FOUND;
	PERFORM {{t}}serve(k, claim);
	RETURN held::int;
END $$;

-- leave removes the executor m from k's queue, and gives up the claims a
-- release gave it, handing k on.
CREATE OR REPLACE FUNCTION {{t}}leave(k text, m text, claim bigint) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	IF current_setting('synchronous_commit') IN ('off', 'local') THEN
		PERFORM set_config('synchronous_commit', 'on', true); -- durable: see above
	END IF;
	PERFORM 1 FROM {{t}}locks WHERE key = k FOR UPDATE;
	IF NOT FOUND THEN
		-- Nothing to hand on; m's entries left only if the row was deleted by hand.
		DELETE FROM {{t}}waiters WHERE key = k AND member = m;
		DELETE FROM {{t}}shares WHERE key = k AND owner = 'lock4go:claim:' || m;
		RETURN;
	END IF;
	DELETE FROM {{t}}waiters WHERE key = k AND member = m;
	UPDATE {{t}}locks SET owner = NULL WHERE key = k AND owner = 'lock4go:claim:' || m;
	DELETE FROM {{t}}shares WHERE key = k AND owner = 'lock4go:claim:' || m;
	PERFORM {{t}}serve(k, claim);
END $$;

-- renew sets the expiry of every live lease (ks[i], os[i]) to ttls[i] ms
-- from now and returns the indexes (from 1) of those it renewed.
CREATE OR REPLACE FUNCTION {{t}}renew(ks text[], os text[], ttls bigint[]) RETURNS SETOF bigint
LANGUAGE plpgsql AS $$
BEGIN
	IF current_setting('synchronous_commit') IN ('off', 'local') THEN
		PERFORM set_config('synchronous_commit', 'on', true); -- durable: see above
	END IF;
	RETURN QUERY WITH r AS (
		SELECT * FROM unnest(ks, os, ttls) WITH ORDINALITY AS r(key, owner, ttl, i)
	), l AS (
		UPDATE {{t}}locks l SET expires_at = clock_timestamp() + r.ttl * interval '1 millisecond'
		FROM r WHERE l.key = r.key AND l.owner = r.owner AND l.expires_at > clock_timestamp()
		RETURNING r.i
	), s AS (
		UPDATE {{t}}shares s SET expires_at = clock_timestamp() + r.ttl * interval '1 millisecond'
		FROM r WHERE s.key = r.key AND s.owner = r.owner AND s.expires_at > clock_timestamp()
		RETURNING r.i
	)
	SELECT l.i FROM l UNION ALL SELECT s.i FROM s;
END $$;

-- inspect describes k: its writer (or claim) while one is live, else its
-- live read locks or permits (claims among them last), each with its
-- remaining lease, kind ('w', 'r' or 'p<n>') and the number of live queue
-- entries (one per executor and kind). No row when nothing holds k.
DROP FUNCTION IF EXISTS {{t}}inspect(text);
CREATE FUNCTION {{t}}inspect(k text)
RETURNS TABLE (owner text, token bigint, ttl_ms bigint, kind text, waiters int)
LANGUAGE plpgsql AS $$
DECLARE
	now timestamptz := clock_timestamp();
	n   int;
BEGIN
	-- Served entries count once their claim lapsed: they wait again.
	n := (SELECT count(*) FROM {{t}}waiters w WHERE w.key = k AND w.expires_at > now
		AND (w.arrival >= -2000000000000000000 OR NOT EXISTS (
			SELECT 1 FROM {{t}}locks l WHERE l.key = k AND l.owner = 'lock4go:claim:' || w.member AND l.expires_at > now
			UNION ALL
			SELECT 1 FROM {{t}}shares s WHERE s.key = k AND s.owner = 'lock4go:claim:' || w.member AND s.expires_at > now)));
	RETURN QUERY SELECT l.owner, l.token, (extract(epoch FROM l.expires_at - now) * 1000)::bigint, 'w'::text, n
	FROM {{t}}locks l WHERE l.key = k AND l.owner IS NOT NULL AND l.expires_at > now;
	IF FOUND THEN
		RETURN;
	END IF;
	RETURN QUERY SELECT s.owner, s.token, (extract(epoch FROM s.expires_at - now) * 1000)::bigint, s.kind, n
	FROM {{t}}shares s WHERE s.key = k AND s.expires_at > now
	ORDER BY s.token = 0, s.token;
END $$;

-- stale returns, in key order, up to lim keys after the key after ('' for
-- the first) whose rows may hold nothing live any more: their writer or
-- claim expired, or they hold no live share (rows of crashed processes,
-- whose leases ended without a release), and the keys of shares and queue
-- entries left without their key's row (deleted by hand). A sweep pages
-- through them, so that rows it cannot tidy (locked by another session)
-- cost it one visit each. The first page also removes the void markers
-- past their time.
DROP FUNCTION IF EXISTS {{t}}stale(int);
CREATE OR REPLACE FUNCTION {{t}}stale(lim int, after text DEFAULT '') RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	now timestamptz := clock_timestamp();
BEGIN
	IF current_setting('synchronous_commit') IN ('off', 'local') THEN
		PERFORM set_config('synchronous_commit', 'on', true); -- durable: see above
	END IF;
	IF after = '' THEN
		-- Markers another session holds are left for a later sweep: a
		-- plain DELETE waits for them, and one held marker then failed
		-- the whole sweep.
		DELETE FROM {{t}}voids WHERE owner IN
			(SELECT owner FROM {{t}}voids WHERE expires_at < now FOR UPDATE SKIP LOCKED);
	END IF;
	RETURN QUERY SELECT x.key FROM (
		(SELECT l.key FROM {{t}}locks l WHERE l.key > after
			AND CASE WHEN l.owner IS NOT NULL THEN l.expires_at < now
				ELSE NOT EXISTS (SELECT 1 FROM {{t}}shares s WHERE s.key = l.key AND s.expires_at > now) END
			ORDER BY l.key LIMIT lim)
		UNION (SELECT DISTINCT s.key FROM {{t}}shares s WHERE s.key > after
			AND NOT EXISTS (SELECT 1 FROM {{t}}locks l WHERE l.key = s.key) ORDER BY s.key LIMIT lim)
		UNION (SELECT DISTINCT w.key FROM {{t}}waiters w WHERE w.key > after
			AND NOT EXISTS (SELECT 1 FROM {{t}}locks l WHERE l.key = w.key) ORDER BY w.key LIMIT lim)
	) x ORDER BY x.key LIMIT lim;
END $$;

-- tidy removes what expired of k and hands it on (serve), unless another
-- statement holds its row; shares and queue entries left without their
-- key's row get it back first.
CREATE OR REPLACE FUNCTION {{t}}tidy(k text, claim bigint) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	IF current_setting('synchronous_commit') IN ('off', 'local') THEN
		PERFORM set_config('synchronous_commit', 'on', true); -- durable: see above
	END IF;
	PERFORM 1 FROM {{t}}locks WHERE key = k FOR UPDATE SKIP LOCKED;
	IF NOT FOUND THEN
		IF EXISTS (SELECT 1 FROM {{t}}locks WHERE key = k) THEN
			RETURN; -- busy: another statement holds the row
		END IF;
		PERFORM {{t}}lock_key(k);
	END IF;
	PERFORM {{t}}serve(k, claim);
END $$;
