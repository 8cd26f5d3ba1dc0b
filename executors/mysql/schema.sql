-- lock4go MySQL / MariaDB schema, protocol version 1.
--
-- The placeholder t (in double braces) is the table prefix with its
-- database ("lock4go_" by default, or `db`.lock4go_), w the prefix of the
-- executors' wake lock names (GET_LOCK names are the server's, not a
-- database's), clock and begin statements that names.go writes out. docs/mysql.md
-- describes the protocol. One SQL for MySQL 8.0+ and MariaDB 10.6+: no
-- RETURNING, no sequences, no CREATE OR REPLACE PROCEDURE, no FOR SHARE.
--
-- Every procedure the executor calls is one statement (CALL) standing
-- alone, and needs no session state: keys and owners are VARBINARY
-- (compared byte by byte, whatever the connection's character set and
-- collation), times are microseconds since 1970 by the server's clock in
-- BIGINT columns (no DATETIME or TIMESTAMP, no time zone), and a CALL that
-- writes runs one transaction of its own, in READ COMMITTED (SET
-- TRANSACTION then START TRANSACTION: statements in a procedure would
-- otherwise commit one by one under autocommit, and REPEATABLE READ's gap
-- locks would make neighbouring keys deadlock). Inside it, everything
-- about a key starts by taking the row lock of the key's row in
-- {{t}}locks (creating a free row if there is none), so the statements of
-- one key are serialized and each sees the others' effects. A procedure
-- keeps the sql_mode in force when Migrate created it (strict, see
-- Migrate), whatever the session's.
--
-- The clock placeholder sets v_now to the server's time: UTC_TIMESTAMP(6),
-- unless the session froze its clock (SET timestamp, which NOW() and
-- UTC_TIMESTAMP() follow and SYSDATE() does not): the session's clock is
-- then reset first. begin starts the procedure's transaction.

DELIMITER //

-- Fencing tokens: one AUTO_INCREMENT for every key, so a token outlives
-- the row it was drawn for and tokens grow across takeovers. A token is
-- drawn by inserting a row and deleting it in the same transaction: the
-- table stays empty, and its counter, which InnoDB persists (MySQL 8.0,
-- MariaDB 10.2.4 and later), never goes back across restarts. Never
-- TRUNCATE it: that resets the counter.
CREATE TABLE IF NOT EXISTS {{t}}tokens (
	token BIGINT NOT NULL AUTO_INCREMENT,
	PRIMARY KEY (token)
) ENGINE=InnoDB
//

-- One row per key in use: held by a writer (a lock, a write lock), claimed
-- by a woken waiter, or holding read locks or permits. owner is the
-- writer's owner value or 'lock4go:claim:<member>', NULL when none;
-- expires ends the writer's lease or the claim (microseconds since 1970),
-- and is the largest BIGINT while shares hold the key (they end by their
-- own rows), so that a held key's row never looks expired. A released
-- key's row stays, free (owner NULL, expires the time of the release),
-- until a sweep finds it so and deletes it.
CREATE TABLE IF NOT EXISTS {{t}}locks (
	k       VARBINARY(1024) NOT NULL,
	owner   VARBINARY(255) NULL,
	token   BIGINT NOT NULL DEFAULT 0,
	expires BIGINT NOT NULL DEFAULT 0,
	PRIMARY KEY (k)
) ENGINE=InnoDB ROW_FORMAT=DYNAMIC
//

-- Read locks and permits: kind is 'r' or 'p<n>' (a permit of a semaphore
-- of n); a claim a release gave to a waiting executor has the owner
-- 'lock4go:claim:<member>'.
CREATE TABLE IF NOT EXISTS {{t}}shares (
	k       VARBINARY(1024) NOT NULL,
	owner   VARBINARY(255) NOT NULL,
	kind    VARBINARY(16) NOT NULL,
	token   BIGINT NOT NULL DEFAULT 0,
	expires BIGINT NOT NULL,
	PRIMARY KEY (k, owner)
) ENGINE=InnoDB ROW_FORMAT=DYNAMIC
//

-- Wait queues: one entry per key, executor (member) and kind ('w' for a
-- writer), in arrival order; an entry expires unless its waiter's attempts
-- refresh it. A hand-off (serve) keeps the entry of the executor it
-- served, passed over, until its waiter takes its claim, which deletes the
-- entry: its arrival becomes a served one, below -2e18 (the arrival less
-- 4e18). A served waiter whose claim lapsed (a stopped or throttled
-- process) so keeps its place; its next attempt moves the entry up by
-- 2e18 (resumed: still below every arrival, so it has the next turn).
CREATE TABLE IF NOT EXISTS {{t}}waiters (
	k       VARBINARY(1024) NOT NULL,
	member  VARBINARY(32) NOT NULL,
	kind    VARBINARY(16) NOT NULL,
	arrival BIGINT NOT NULL AUTO_INCREMENT,
	expires BIGINT NOT NULL,
	PRIMARY KEY (k, member, kind),
	KEY arrival (arrival)
) ENGINE=InnoDB ROW_FORMAT=DYNAMIC
//

-- Wakes: the hand-offs to each executor (member) that its wake connection
-- has yet to take, kind 'w' (a claim on the key's row) or 's' (claims
-- among its shares), at the server's time. taken is 0, or the number of
-- the wait call that is taking the row (see wait), until it commits.
CREATE TABLE IF NOT EXISTS {{t}}wakes (
	member VARBINARY(32) NOT NULL,
	k      VARBINARY(1024) NOT NULL,
	kind   VARBINARY(1) NOT NULL,
	at     BIGINT NOT NULL,
	taken  BIGINT NOT NULL DEFAULT 0,
	PRIMARY KEY (member, k, kind)
) ENGINE=InnoDB ROW_FORMAT=DYNAMIC
//

-- Bells: one row per executor whose wake connection runs (member), saying
-- whether it sleeps and may be rung, and when it last called wait. A ring
-- takes the flag from TRUE to FALSE before it interrupts the connection,
-- so that one ring, not every release that served the executor, sends a
-- KILL: MariaDB stalls concurrent KILLs of one connection for seconds.
CREATE TABLE IF NOT EXISTS {{t}}bells (
	member   VARBINARY(32) NOT NULL,
	sleeping BOOLEAN NOT NULL DEFAULT FALSE,
	at       BIGINT NOT NULL,
	PRIMARY KEY (member)
) ENGINE=InnoDB ROW_FORMAT=DYNAMIC
//

-- Owners whose acquisition's reply was lost: their statements, should they
-- still land, take nothing.
CREATE TABLE IF NOT EXISTS {{t}}voids (
	owner   VARBINARY(255) NOT NULL,
	expires BIGINT NOT NULL,
	PRIMARY KEY (owner)
) ENGINE=InnoDB ROW_FORMAT=DYNAMIC
//

-- lock_key locks the row of k, creating a free one if there is none, and
-- returns it; a row it created for a key live shares hold (its row was
-- deleted by hand) is made theirs. It must come before any write of its caller's
-- transaction: a missing row is created in a transaction of its own,
-- committed at once, before the row is locked. Creating the row inside
-- the caller's transaction would keep, until its end, the shared lock
-- InnoDB takes on a duplicate (a row another statement created meanwhile,
-- or one deleted and not yet purged) before the exclusive one: two such
-- transactions deadlock on every new key a burst of callers meets. For the
-- same reason releases keep the rows of their keys, free, and only the
-- sweep deletes them.
DROP PROCEDURE IF EXISTS {{t}}lock_key
//
CREATE PROCEDURE {{t}}lock_key(a_k VARBINARY(1025), a_now BIGINT,
	OUT a_owner VARBINARY(255), OUT a_token BIGINT, OUT a_expires BIGINT)
SQL SECURITY INVOKER MODIFIES SQL DATA
BEGIN
	DECLARE v_created, v_shared BOOLEAN DEFAULT FALSE;
	SET a_expires = NULL;
	WHILE a_expires IS NULL DO
		SELECT owner, token, expires INTO a_owner, a_token, a_expires
		FROM {{t}}locks WHERE k = a_k FOR UPDATE;
		IF a_expires IS NULL THEN
			COMMIT;
			{{begin}}
			INSERT INTO {{t}}locks (k, owner, token, expires) VALUES (a_k, NULL, 0, a_now)
			ON DUPLICATE KEY UPDATE k = k;
			COMMIT;
			{{begin}}
			SET v_created = TRUE;
		END IF;
	END WHILE;
	IF v_created AND a_owner IS NULL AND a_expires < 9223372036854775807 THEN
		-- Live shares always have their key's row, at the largest expires,
		-- unless it was deleted by hand.
		SELECT EXISTS (SELECT 1 FROM {{t}}shares WHERE k = a_k AND expires > a_now) INTO v_shared;
	END IF;
	IF v_shared THEN
		UPDATE {{t}}locks SET expires = 9223372036854775807 WHERE k = a_k;
		SET a_expires = 9223372036854775807;
	END IF;
END
//

-- draw returns a new fencing token.
DROP PROCEDURE IF EXISTS {{t}}draw
//
CREATE PROCEDURE {{t}}draw(OUT a_token BIGINT)
SQL SECURITY INVOKER MODIFIES SQL DATA
BEGIN
	INSERT INTO {{t}}tokens () VALUES ();
	SET a_token = LAST_INSERT_ID();
	DELETE FROM {{t}}tokens WHERE token = a_token;
END
//

-- join queues member m for k as kind sk, keeping its place if it is
-- queued already, and refreshes its entry's expiry.
DROP PROCEDURE IF EXISTS {{t}}join
//
CREATE PROCEDURE {{t}}join(a_k VARBINARY(1025), a_m VARBINARY(33), a_sk VARBINARY(16),
	a_qttl BIGINT, a_now BIGINT)
SQL SECURITY INVOKER MODIFIES SQL DATA
BEGIN
	INSERT INTO {{t}}waiters (k, member, kind, expires) VALUES (a_k, a_m, a_sk, a_now + a_qttl * 1000)
	ON DUPLICATE KEY UPDATE expires = a_now + a_qttl * 1000;
END
//

-- rouse takes the flag of the executor m's bell from sleeping to not (one
-- release, not every release that served m, interrupts one sleep: MariaDB
-- stalls concurrent KILLs of one connection) and, when it did, adds m to
-- a_wake (16 characters a member), for ring after the commit.
DROP PROCEDURE IF EXISTS {{t}}rouse
//
CREATE PROCEDURE {{t}}rouse(a_m VARBINARY(32), INOUT a_wake VARBINARY(4096))
SQL SECURITY INVOKER MODIFIES SQL DATA
BEGIN
	UPDATE {{t}}bells SET sleeping = FALSE WHERE member = a_m AND sleeping;
	IF ROW_COUNT() > 0 AND LENGTH(a_wake) <= 4080 AND LOCATE(a_m, a_wake) = 0 THEN
		SET a_wake = CONCAT(a_wake, a_m);
	END IF;
END
//

-- serve hands k, when no writer holds or claims it, to the head of its
-- queue: a writer gets a claim on the row (once no share is left), readers
-- and permit waiters claims among the shares while they fit; each served
-- executor's entry becomes a served one (passed over from then on), and
-- it gets a wake row, and rouse adds it to a_wake for ring to wake
-- after the commit when its wake connection sleeps. It stops at the
-- first waiter that does not fit, marks the row of a key left with shares
-- as theirs, and frees the row of a key left with nothing (owner NULL,
-- expires now), or deletes it when a_drop is set (the sweep). The caller
-- holds the row's lock.
DROP PROCEDURE IF EXISTS {{t}}serve
//
CREATE PROCEDURE {{t}}serve(a_k VARBINARY(1025), a_claim BIGINT, a_now BIGINT, a_drop BOOLEAN,
	INOUT a_wake VARBINARY(4096))
SQL SECURITY INVOKER MODIFIES SQL DATA
serve: BEGIN
	DECLARE v_owner VARBINARY(255);
	DECLARE v_expires, v_n BIGINT;
	DECLARE v_sk, v_wk VARBINARY(16);
	DECLARE v_m VARBINARY(32);
	SET v_owner = NULL, v_expires = NULL;
	SELECT owner, expires INTO v_owner, v_expires FROM {{t}}locks WHERE k = a_k;
	IF v_expires IS NULL OR (v_owner IS NOT NULL AND v_expires > a_now) THEN
		LEAVE serve;
	END IF;
	DELETE FROM {{t}}shares WHERE k = a_k AND expires <= a_now;
	DELETE FROM {{t}}waiters WHERE k = a_k AND expires <= a_now;
	SELECT COUNT(*), MIN(kind) INTO v_n, v_sk FROM {{t}}shares WHERE k = a_k;
	serving: LOOP
		SET v_m = NULL;
		SELECT member, kind INTO v_m, v_wk FROM {{t}}waiters
		WHERE k = a_k AND arrival >= -2000000000000000000 ORDER BY arrival LIMIT 1;
		IF v_m IS NULL THEN
			LEAVE serving;
		END IF;
		IF v_wk = 'w' THEN
			IF v_n > 0 THEN
				LEAVE serving;
			END IF;
			UPDATE {{t}}locks SET owner = CONCAT('lock4go:claim:', v_m),
				expires = a_now + a_claim * 1000 WHERE k = a_k;
			UPDATE {{t}}waiters SET arrival = arrival - 4000000000000000000
		WHERE k = a_k AND member = v_m AND kind = v_wk;
			INSERT INTO {{t}}wakes (member, k, kind, at) VALUES (v_m, a_k, 'w', a_now)
			ON DUPLICATE KEY UPDATE at = a_now, taken = 0;
			CALL {{t}}rouse(v_m, a_wake);
			LEAVE serve;
		END IF;
		IF v_n > 0 AND v_sk <> v_wk THEN
			LEAVE serving;
		END IF;
		IF v_wk <> 'r' AND v_n >= CAST(SUBSTRING(v_wk, 2) AS SIGNED) THEN
			LEAVE serving;
		END IF;
		INSERT INTO {{t}}shares (k, owner, kind, expires)
		VALUES (a_k, CONCAT('lock4go:claim:', v_m), v_wk, a_now + a_claim * 1000)
		ON DUPLICATE KEY UPDATE kind = v_wk, expires = a_now + a_claim * 1000;
		UPDATE {{t}}waiters SET arrival = arrival - 4000000000000000000
		WHERE k = a_k AND member = v_m AND kind = v_wk;
		INSERT INTO {{t}}wakes (member, k, kind, at) VALUES (v_m, a_k, 's', a_now)
		ON DUPLICATE KEY UPDATE at = a_now, taken = 0;
		CALL {{t}}rouse(v_m, a_wake);
		SET v_n = v_n + 1, v_sk = v_wk;
	END LOOP;
	IF v_n > 0 THEN
		UPDATE {{t}}locks SET owner = NULL, expires = 9223372036854775807 WHERE k = a_k;
	ELSEIF a_drop AND v_m IS NULL THEN
		DELETE FROM {{t}}locks WHERE k = a_k;
	ELSEIF v_owner IS NOT NULL OR v_expires > a_now THEN
		UPDATE {{t}}locks SET owner = NULL, expires = a_now WHERE k = a_k;
	END IF;
END
//

-- lock_turn locks the row of k for an attempt of the executor m ('' for
-- one that does not wait) of kind sk, as lock_key does, after setting
-- right what a stalled waiter left: a claim that lapsed, other than m's
-- own, is handed on (serve, adding to a_wake whom to ring after the
-- commit), so that the attempt finds k as a release would have left it,
-- not free for whoever asks first; and m's served entry of kind sk, whose
-- claim lapsed or which it is about to take, is resumed: the next turn is
-- m's.
DROP PROCEDURE IF EXISTS {{t}}lock_turn
//
CREATE PROCEDURE {{t}}lock_turn(a_k VARBINARY(1025), a_m VARBINARY(33), a_sk VARBINARY(16),
	a_claim BIGINT, a_now BIGINT, INOUT a_wake VARBINARY(4096),
	OUT a_owner VARBINARY(255), OUT a_token BIGINT, OUT a_expires BIGINT)
SQL SECURITY INVOKER MODIFIES SQL DATA
BEGIN
	CALL {{t}}lock_key(a_k, a_now, a_owner, a_token, a_expires);
	IF a_owner LIKE 'lock4go:claim:%' AND a_expires <= a_now
		AND a_owner <> CONCAT('lock4go:claim:', a_m) THEN
		CALL {{t}}serve(a_k, a_claim, a_now, FALSE, a_wake);
		SELECT owner, token, expires INTO a_owner, a_token, a_expires
		FROM {{t}}locks WHERE k = a_k;
	END IF;
	IF a_m <> '' THEN
		UPDATE {{t}}waiters SET arrival = arrival + 2000000000000000000
		WHERE k = a_k AND member = a_m AND kind = a_sk AND arrival < -2000000000000000000;
	END IF;
END
//

-- ring wakes the executors of a_wake (members, 16 characters each, whose
-- flags rouse took) but a_self, after the commit that served them: it
-- interrupts the statement each one's wake connection runs (KILL QUERY),
-- found by the wake lock that connection holds (the w prefix and the
-- member). It is a hint: the wakes rows and the claims are the truth.
-- a_denied is set when the server refused a KILL (an executor connected as
-- another user: MySQL lets a user kill only its own statements, unless it
-- has CONNECTION_ADMIN).
DROP PROCEDURE IF EXISTS {{t}}ring
//
CREATE PROCEDURE {{t}}ring(a_wake VARBINARY(4096), a_self VARBINARY(33), OUT a_denied BOOLEAN)
SQL SECURITY INVOKER NO SQL
BEGIN
	DECLARE v_i INT DEFAULT 0;
	DECLARE v_id BIGINT;
	DECLARE v_m VARBINARY(32);
	DECLARE CONTINUE HANDLER FOR 1094 BEGIN END; -- unknown thread: it ended meanwhile
	DECLARE CONTINUE HANDLER FOR 1095 SET a_denied = TRUE; -- not this user's thread
	SET a_denied = FALSE;
	WHILE v_i < LENGTH(a_wake) DO
		SET v_m = SUBSTRING(a_wake, v_i + 1, 16);
		IF v_m <> a_self THEN
			SET v_id = IS_USED_LOCK(CONCAT('{{w}}', v_m));
			IF v_id IS NOT NULL THEN
				KILL QUERY v_id;
			END IF;
		END IF;
		SET v_i = v_i + 16;
	END WHILE;
END
//

-- acquire takes k for the owner o with a lease of ttl ms and returns the
-- token; 0 when another owner holds it and m is '' (no wait); -2 when o
-- was voided; -3 when k is busy and the executor m (waiting) is queued;
-- -4 when k is in use as a semaphore. A woken executor m takes its claim.
-- queued says that m may still stand in k's queue (an earlier attempt
-- joined it and none took k since): a read without a lock or a write
-- answers -3 when m still stands in it (for at least half its entry's
-- life) while another owner holds k; a release that commits after this
-- read serves the queue and wakes m.
DROP PROCEDURE IF EXISTS {{t}}acquire
//
CREATE PROCEDURE {{t}}acquire(a_k VARBINARY(1025), a_o VARBINARY(256), a_ttl BIGINT,
	a_m VARBINARY(33), a_qttl BIGINT, a_claim BIGINT, a_queued BOOLEAN)
SQL SECURITY INVOKER MODIFIES SQL DATA
body: BEGIN
	DECLARE v_now, v_token, v_expires, v_t BIGINT;
	DECLARE v_owner VARBINARY(255);
	DECLARE v_sk VARBINARY(16);
	DECLARE v_busy BOOLEAN DEFAULT FALSE;
	DECLARE v_voided BOOLEAN;
	DECLARE v_wake VARBINARY(4096) DEFAULT '';
	DECLARE v_denied BOOLEAN DEFAULT FALSE;
	{{clock}}
	{{begin}}
	work: BEGIN
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	IF a_queued THEN
		-- SELECT ... INTO, never IF EXISTS (SELECT ...) or SET v = (SELECT
		-- ...): InnoDB reads for a statement other than SELECT with shared
		-- locks, even in READ COMMITTED, and a shared lock on the key's
		-- row deadlocks with the exclusive ones of other statements.
		SELECT EXISTS (SELECT 1 FROM {{t}}locks WHERE k = a_k AND owner IS NOT NULL
				AND owner <> a_o AND owner <> CONCAT('lock4go:claim:', a_m) AND expires > v_now)
			AND EXISTS (SELECT 1 FROM {{t}}waiters WHERE k = a_k AND member = a_m AND kind = 'w'
				AND arrival >= -2000000000000000000 AND expires > v_now + a_qttl * 500) INTO v_busy;
	END IF;
	IF v_busy THEN
		COMMIT;
		SELECT -3, FALSE;
		LEAVE body;
	END IF;
	CALL {{t}}lock_turn(a_k, a_m, 'w', a_claim, v_now, v_wake, v_owner, v_token, v_expires);
	SELECT EXISTS (SELECT 1 FROM {{t}}voids WHERE owner = a_o) INTO v_voided;
	IF v_voided THEN
		CALL {{t}}serve(a_k, a_claim, v_now, FALSE, v_wake);
		COMMIT;
		IF v_wake <> '' THEN
			CALL {{t}}ring(v_wake, a_m, v_denied);
		END IF;
		SELECT -2, v_denied;
		LEAVE body;
	END IF;
	IF v_owner = a_o AND v_expires > v_now THEN
		COMMIT;
		IF v_wake <> '' THEN
			CALL {{t}}ring(v_wake, a_m, v_denied);
		END IF;
		SELECT v_token, v_denied; -- this very acquisition, sent again
		LEAVE body;
	END IF;
	SET v_busy = v_owner IS NOT NULL AND v_expires > v_now
		AND (a_m = '' OR v_owner <> CONCAT('lock4go:claim:', a_m));
	IF NOT v_busy AND v_expires = 9223372036854775807 THEN
		-- Only a row at the largest expires may have live shares.
		DELETE FROM {{t}}shares WHERE k = a_k AND expires <= v_now;
		SET v_sk = NULL;
		SELECT kind INTO v_sk FROM {{t}}shares WHERE k = a_k LIMIT 1;
		IF v_sk IS NOT NULL THEN
			UPDATE {{t}}locks SET owner = NULL, expires = 9223372036854775807 WHERE k = a_k;
			IF v_sk <> 'r' THEN
				COMMIT;
				IF v_wake <> '' THEN
					CALL {{t}}ring(v_wake, a_m, v_denied);
				END IF;
				SELECT -4, v_denied;
				LEAVE body;
			END IF;
			SET v_busy = TRUE;
		END IF;
	END IF;
	IF v_busy THEN
		IF a_m = '' THEN
			COMMIT;
			IF v_wake <> '' THEN
				CALL {{t}}ring(v_wake, a_m, v_denied);
			END IF;
			SELECT 0, v_denied;
			LEAVE body;
		END IF;
		CALL {{t}}join(a_k, a_m, 'w', a_qttl, v_now);
		COMMIT;
		IF v_wake <> '' THEN
			CALL {{t}}ring(v_wake, a_m, v_denied);
		END IF;
		SELECT -3, v_denied;
		LEAVE body;
	END IF;
	-- The token is drawn once the row is ours: a token drawn before could
	-- be below the one of a holder that came and went meanwhile.
	CALL {{t}}draw(v_t);
	UPDATE {{t}}locks SET owner = a_o, token = v_t, expires = v_now + a_ttl * 1000 WHERE k = a_k;
	IF a_m <> '' THEN
		DELETE FROM {{t}}waiters WHERE k = a_k AND member = a_m AND kind = 'w';
	END IF;
	COMMIT;
	IF v_wake <> '' THEN
		CALL {{t}}ring(v_wake, a_m, v_denied);
	END IF;
	SELECT v_t, v_denied;
	END work;
END
//

-- acquire_share takes a read lock (sk 'r') or a permit of a semaphore of
-- n (sk 'p<n>') of k for the owner o and returns the token, or the codes
-- of acquire. A read lock is granted while no writer holds or claims k
-- and nobody waits before it; a permit while fewer than n are out and
-- nobody waits before it; either when the executor m holds a claim.
DROP PROCEDURE IF EXISTS {{t}}acquire_share
//
CREATE PROCEDURE {{t}}acquire_share(a_k VARBINARY(1025), a_o VARBINARY(256), a_ttl BIGINT,
	a_m VARBINARY(33), a_qttl BIGINT, a_sk VARBINARY(16), a_n INT, a_claim BIGINT)
SQL SECURITY INVOKER MODIFIES SQL DATA
body: BEGIN
	DECLARE v_now, v_token, v_expires, v_t, v_cnt BIGINT;
	DECLARE v_owner VARBINARY(255);
	DECLARE v_cur, v_hk VARBINARY(16);
	DECLARE v_hm VARBINARY(32);
	DECLARE v_writer, v_free BOOLEAN;
	DECLARE v_wake VARBINARY(4096) DEFAULT '';
	DECLARE v_denied BOOLEAN DEFAULT FALSE;
	DECLARE v_code BIGINT DEFAULT 0;
	{{clock}}
	{{begin}}
	work: BEGIN
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	CALL {{t}}lock_turn(a_k, a_m, a_sk, a_claim, v_now, v_wake, v_owner, v_token, v_expires);
	decide: BEGIN
		SELECT EXISTS (SELECT 1 FROM {{t}}voids WHERE owner = a_o) INTO v_free;
		IF v_free THEN
			SET v_code = -2;
			LEAVE decide;
		END IF;
		SET v_t = NULL;
		SELECT token INTO v_t FROM {{t}}shares WHERE k = a_k AND owner = a_o AND expires > v_now;
		IF v_t IS NOT NULL THEN
			SET v_code = v_t; -- this very acquisition, sent again
			LEAVE decide;
		END IF;
		SET v_writer = v_owner IS NOT NULL AND v_expires > v_now;
		DELETE FROM {{t}}shares WHERE k = a_k AND expires <= v_now;
		SELECT COUNT(*), MIN(kind) INTO v_cnt, v_cur FROM {{t}}shares WHERE k = a_k;
		IF (v_cnt > 0 AND v_cur <> a_sk) OR (a_sk <> 'r' AND v_writer) THEN
			SET v_code = -4;
			LEAVE decide;
		END IF;
		SELECT a_m <> '' AND EXISTS (SELECT 1 FROM {{t}}shares WHERE k = a_k
			AND owner = CONCAT('lock4go:claim:', a_m)) INTO v_free;
		IF v_free THEN
			DELETE FROM {{t}}shares WHERE k = a_k AND owner = CONCAT('lock4go:claim:', a_m);
		END IF;
		IF NOT v_free THEN
			SET v_free = IF(a_sk = 'r', NOT v_writer, v_cnt < a_n);
			IF v_free THEN
				SET v_hm = NULL;
				SELECT member, kind INTO v_hm, v_hk FROM {{t}}waiters
				WHERE k = a_k AND expires > v_now AND arrival >= -2000000000000000000
				ORDER BY arrival LIMIT 1;
				SET v_free = v_hm IS NULL OR (v_hm = a_m AND v_hk = a_sk);
			END IF;
		END IF;
		IF NOT v_free THEN
			IF a_m = '' THEN
				SET v_code = 0;
				LEAVE decide;
			END IF;
			CALL {{t}}join(a_k, a_m, a_sk, a_qttl, v_now);
			COMMIT;
			IF v_wake <> '' THEN
				CALL {{t}}ring(v_wake, a_m, v_denied);
			END IF;
			SELECT -3, v_denied;
			LEAVE body;
		END IF;
		IF a_m <> '' THEN
			DELETE FROM {{t}}waiters WHERE k = a_k AND member = a_m AND kind = a_sk;
		END IF;
		-- serve, below, makes the row the shares' (an expired writer or claim
		-- gone).
		CALL {{t}}draw(v_t);
		INSERT INTO {{t}}shares (k, owner, kind, token, expires)
		VALUES (a_k, a_o, a_sk, v_t, v_now + a_ttl * 1000);
		SET v_code = v_t;
	END decide;
	CALL {{t}}serve(a_k, a_claim, v_now, FALSE, v_wake);
	COMMIT;
	IF v_wake <> '' THEN
		CALL {{t}}ring(v_wake, a_m, v_denied);
	END IF;
	SELECT v_code, v_denied;
	END work;
END
//

-- release frees k if o holds it (a lock or a share), hands it on (serve)
-- and returns 1, or 2 when it handed the lock to the releasing executor m
-- itself (which wakes its waiter without waiting for a wake); it returns
-- 0 when o held nothing, or held a lease that had expired (which it
-- removes all the same). The second column is ring's a_denied.
DROP PROCEDURE IF EXISTS {{t}}release
//
CREATE PROCEDURE {{t}}release(a_k VARBINARY(1025), a_o VARBINARY(256), a_claim BIGINT, a_m VARBINARY(33))
SQL SECURITY INVOKER MODIFIES SQL DATA
body: BEGIN
	DECLARE v_now, v_token, v_expires BIGINT;
	DECLARE v_owner VARBINARY(255);
	DECLARE v_wake VARBINARY(4096) DEFAULT '';
	DECLARE v_denied BOOLEAN DEFAULT FALSE;
	DECLARE v_code INT DEFAULT 0;
	DECLARE v_x BOOLEAN DEFAULT FALSE;
	{{clock}}
	{{begin}}
	work: BEGIN
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	SET v_expires = NULL;
	SELECT expires INTO v_expires FROM {{t}}locks WHERE k = a_k AND owner = a_o FOR UPDATE;
	IF v_expires IS NOT NULL THEN
		SET v_code = IF(v_expires > v_now, 1, 0);
		UPDATE {{t}}locks SET owner = NULL, expires = v_now WHERE k = a_k;
		SELECT EXISTS (SELECT 1 FROM {{t}}waiters WHERE k = a_k) INTO v_x;
		IF v_x THEN
			CALL {{t}}serve(a_k, a_claim, v_now, FALSE, v_wake);
			SELECT v_code = 1 AND a_m <> '' AND EXISTS (SELECT 1 FROM {{t}}locks
				WHERE k = a_k AND owner = CONCAT('lock4go:claim:', a_m)) INTO v_x;
			IF v_x THEN
				SET v_code = 2;
			END IF;
		END IF;
	END IF;
	IF v_expires IS NULL THEN
		SELECT EXISTS (SELECT 1 FROM {{t}}shares WHERE k = a_k AND owner = a_o) INTO v_x;
	END IF;
	IF v_expires IS NULL AND v_x THEN
		CALL {{t}}lock_key(a_k, v_now, v_owner, v_token, v_expires); -- back, if it was deleted by hand
		SET v_expires = NULL;
		SELECT expires INTO v_expires FROM {{t}}shares WHERE k = a_k AND owner = a_o FOR UPDATE;
		DELETE FROM {{t}}shares WHERE k = a_k AND owner = a_o;
		SET v_code = IF(v_expires > v_now, 1, 0);
		CALL {{t}}serve(a_k, a_claim, v_now, FALSE, v_wake);
	END IF;
	COMMIT;
	IF v_wake <> '' THEN
		CALL {{t}}ring(v_wake, a_m, v_denied);
	END IF;
	SELECT v_code, v_denied;
	END work;
END
//

-- void is the clean-up of an acquisition by o whose reply was lost: it
-- marks o void for vttl ms, so that its statement takes nothing should it
-- land later, then frees what o holds of k. When a_m is the member of a
-- waiting acquisition whose executor no longer waits for k, it also
-- removes that executor's queue entries and claims of k: the lost
-- statement may have queued it after its waiter left. It returns 1 when o
-- held k.
DROP PROCEDURE IF EXISTS {{t}}void
//
CREATE PROCEDURE {{t}}void(a_k VARBINARY(1025), a_o VARBINARY(256), a_vttl BIGINT, a_claim BIGINT, a_m VARBINARY(33))
SQL SECURITY INVOKER MODIFIES SQL DATA
BEGIN
	DECLARE v_now, v_token, v_expires BIGINT;
	DECLARE v_owner VARBINARY(255);
	DECLARE v_held BOOLEAN;
	DECLARE v_wake VARBINARY(4096) DEFAULT '';
	DECLARE v_denied BOOLEAN DEFAULT FALSE;
	{{clock}}
	{{begin}}
	work: BEGIN
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	CALL {{t}}lock_key(a_k, v_now, v_owner, v_token, v_expires);
	INSERT INTO {{t}}voids (owner, expires) VALUES (a_o, v_now + a_vttl * 1000)
	ON DUPLICATE KEY UPDATE expires = v_now + a_vttl * 1000;
	SELECT v_owner <=> a_o OR EXISTS (SELECT 1 FROM {{t}}shares WHERE k = a_k AND owner = a_o) INTO v_held;
	UPDATE {{t}}locks SET owner = NULL, expires = v_now WHERE k = a_k AND owner = a_o;
	DELETE FROM {{t}}shares WHERE k = a_k AND owner = a_o;
	IF a_m <> '' THEN
		DELETE FROM {{t}}waiters WHERE k = a_k AND member = a_m;
		UPDATE {{t}}locks SET owner = NULL, expires = v_now WHERE k = a_k AND owner = CONCAT('lock4go:claim:', a_m);
		DELETE FROM {{t}}shares WHERE k = a_k AND owner = CONCAT('lock4go:claim:', a_m);
	END IF;
	CALL {{t}}serve(a_k, a_claim, v_now, FALSE, v_wake);
	COMMIT;
	IF v_wake <> '' THEN
		CALL {{t}}ring(v_wake, '', v_denied);
	END IF;
	SELECT v_held, v_denied;
	END work;
END
//

-- leave removes the executor m from k's queue, and gives up the claims a
-- release gave it, handing k on.
DROP PROCEDURE IF EXISTS {{t}}leave
//
CREATE PROCEDURE {{t}}leave(a_k VARBINARY(1025), a_m VARBINARY(33), a_claim BIGINT)
SQL SECURITY INVOKER MODIFIES SQL DATA
body: BEGIN
	DECLARE v_now, v_n BIGINT;
	DECLARE v_wake VARBINARY(4096) DEFAULT '';
	DECLARE v_denied BOOLEAN DEFAULT FALSE;
	{{clock}}
	{{begin}}
	work: BEGIN
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	SELECT COUNT(*) INTO v_n FROM {{t}}locks WHERE k = a_k FOR UPDATE;
	IF v_n = 0 THEN
		-- Nothing to hand on; m's entries left only if the row was deleted by hand.
		DELETE FROM {{t}}waiters WHERE k = a_k AND member = a_m;
		DELETE FROM {{t}}shares WHERE k = a_k AND owner = CONCAT('lock4go:claim:', a_m);
		COMMIT;
		SELECT 0, FALSE;
		LEAVE body;
	END IF;
	DELETE FROM {{t}}waiters WHERE k = a_k AND member = a_m;
	UPDATE {{t}}locks SET owner = NULL, expires = v_now WHERE k = a_k AND owner = CONCAT('lock4go:claim:', a_m);
	DELETE FROM {{t}}shares WHERE k = a_k AND owner = CONCAT('lock4go:claim:', a_m);
	CALL {{t}}serve(a_k, a_claim, v_now, FALSE, v_wake);
	COMMIT;
	IF v_wake <> '' THEN
		CALL {{t}}ring(v_wake, a_m, v_denied);
	END IF;
	SELECT 0, v_denied;
	END work;
END
//

-- renew sets the expiry of every live lease of a_items (a JSON array of
-- [index, hex key, hex owner, ttl ms]) to its ttl from now and returns the
-- indexes of those it renewed. Batches come sorted by key, so that two
-- never wait for each other's rows in opposite orders.
DROP PROCEDURE IF EXISTS {{t}}renew
//
CREATE PROCEDURE {{t}}renew(a_items LONGTEXT)
SQL SECURITY INVOKER MODIFIES SQL DATA
BEGIN
	DECLARE v_now BIGINT;
	{{clock}}
	{{begin}}
	work: BEGIN
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	UPDATE {{t}}locks l JOIN JSON_TABLE(a_items, '$[*]' COLUMNS (
			i INT PATH '$[0]', k VARCHAR(2048) PATH '$[1]', o VARCHAR(510) PATH '$[2]', ttl BIGINT PATH '$[3]')) r
		ON l.k = UNHEX(r.k) AND l.owner = UNHEX(r.o)
	SET l.expires = v_now + r.ttl * 1000 WHERE l.expires > v_now;
	UPDATE {{t}}shares s JOIN JSON_TABLE(a_items, '$[*]' COLUMNS (
			i INT PATH '$[0]', k VARCHAR(2048) PATH '$[1]', o VARCHAR(510) PATH '$[2]', ttl BIGINT PATH '$[3]')) r
		ON s.k = UNHEX(r.k) AND s.owner = UNHEX(r.o)
	SET s.expires = v_now + r.ttl * 1000 WHERE s.expires > v_now;
	COMMIT;
	SELECT r.i FROM JSON_TABLE(a_items, '$[*]' COLUMNS (
			i INT PATH '$[0]', k VARCHAR(2048) PATH '$[1]', o VARCHAR(510) PATH '$[2]', ttl BIGINT PATH '$[3]')) r
	WHERE EXISTS (SELECT 1 FROM {{t}}locks l WHERE l.k = UNHEX(r.k) AND l.owner = UNHEX(r.o)
			AND l.expires = v_now + r.ttl * 1000)
		OR EXISTS (SELECT 1 FROM {{t}}shares s WHERE s.k = UNHEX(r.k) AND s.owner = UNHEX(r.o)
			AND s.expires = v_now + r.ttl * 1000);
	END work;
END
//

-- inspect describes k: its writer (or claim) while one is live, else its
-- live read locks or permits (claims among them last), each with its
-- remaining lease in ms, kind ('w', 'r' or 'p<n>') and the number of live
-- queue entries (one per executor and kind). No row when nothing holds k.
DROP PROCEDURE IF EXISTS {{t}}inspect
//
CREATE PROCEDURE {{t}}inspect(a_k VARBINARY(1025))
SQL SECURITY INVOKER READS SQL DATA
BEGIN
	DECLARE v_now, v_n BIGINT;
	DECLARE v_w BOOLEAN;
	{{clock}}
	{{begin}}
	work: BEGIN
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	-- Served entries count once their claim lapsed: they wait again.
	SELECT COUNT(*) INTO v_n FROM {{t}}waiters w WHERE w.k = a_k AND w.expires > v_now
		AND (w.arrival >= -2000000000000000000 OR NOT EXISTS (
			SELECT 1 FROM {{t}}locks l WHERE l.k = a_k AND l.owner = CONCAT('lock4go:claim:', w.member)
				AND l.expires > v_now
			UNION ALL
			SELECT 1 FROM {{t}}shares s WHERE s.k = a_k AND s.owner = CONCAT('lock4go:claim:', w.member)
				AND s.expires > v_now));
	SELECT EXISTS (SELECT 1 FROM {{t}}locks WHERE k = a_k AND owner IS NOT NULL AND expires > v_now) INTO v_w;
	IF v_w THEN
		SELECT owner, token, (expires - v_now) DIV 1000, 'w', v_n
		FROM {{t}}locks WHERE k = a_k AND owner IS NOT NULL AND expires > v_now;
	ELSE
		SELECT owner, token, (expires - v_now) DIV 1000, kind, v_n
		FROM {{t}}shares WHERE k = a_k AND expires > v_now
		ORDER BY token = 0, token;
	END IF;
	COMMIT;
	END work;
END
//

-- stale returns, in key order, up to lim keys after the key after (''
-- for the first) whose rows may hold nothing live any more: their writer
-- or claim expired, or they hold no live share (rows of crashed
-- processes, whose leases ended without a release), and the keys of
-- shares and queue entries left without their key's row (deleted by
-- hand). A sweep pages through them, so that rows it cannot tidy (locked
-- by another session) cost it one visit each. The first page also removes
-- the void markers, wakes and bells past their time.
DROP PROCEDURE IF EXISTS {{t}}stale
//
CREATE PROCEDURE {{t}}stale(a_lim INT, a_after VARBINARY(1025), a_claim BIGINT)
SQL SECURITY INVOKER MODIFIES SQL DATA
BEGIN
	DECLARE v_now BIGINT;
	{{clock}}
	{{begin}}
	work: BEGIN
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	IF a_after = '' THEN
		-- Each marker past its time is locked, skipping those another
		-- session holds (left for a later sweep), then deleted by its key:
		-- a DELETE that scans a table waits for every row held, expired or
		-- not, and one held row then failed the whole sweep.
		voids: BEGIN
			DECLARE v_end BOOLEAN DEFAULT FALSE;
			DECLARE v_o VARBINARY(255);
			DECLARE c CURSOR FOR SELECT owner FROM {{t}}voids WHERE expires < v_now FOR UPDATE SKIP LOCKED;
			DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_end = TRUE;
			OPEN c;
			next: LOOP
				FETCH c INTO v_o;
				IF v_end THEN LEAVE next; END IF;
				DELETE FROM {{t}}voids WHERE owner = v_o;
			END LOOP;
			CLOSE c;
		END voids;
		wakes: BEGIN
			DECLARE v_end BOOLEAN DEFAULT FALSE;
			DECLARE v_m VARBINARY(32);
			DECLARE v_k VARBINARY(1024);
			DECLARE v_kind VARBINARY(1);
			DECLARE c CURSOR FOR SELECT member, k, kind FROM {{t}}wakes
				WHERE at < v_now - 2 * a_claim * 1000 FOR UPDATE SKIP LOCKED;
			DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_end = TRUE;
			OPEN c;
			next: LOOP
				FETCH c INTO v_m, v_k, v_kind;
				IF v_end THEN LEAVE next; END IF;
				DELETE FROM {{t}}wakes WHERE member = v_m AND k = v_k AND kind = v_kind;
			END LOOP;
			CLOSE c;
		END wakes;
		bells: BEGIN
			DECLARE v_end BOOLEAN DEFAULT FALSE;
			DECLARE v_m VARBINARY(32);
			DECLARE c CURSOR FOR SELECT member FROM {{t}}bells
				WHERE at < v_now - 60000000 FOR UPDATE SKIP LOCKED; -- a bell calls every 5s
			DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_end = TRUE;
			OPEN c;
			next: LOOP
				FETCH c INTO v_m;
				IF v_end THEN LEAVE next; END IF;
				DELETE FROM {{t}}bells WHERE member = v_m;
			END LOOP;
			CLOSE c;
		END bells;
	END IF;
	SELECT x.k FROM (
		(SELECT l.k FROM {{t}}locks l WHERE l.k > a_after
			AND CASE WHEN l.owner IS NOT NULL THEN l.expires < v_now
				ELSE NOT EXISTS (SELECT 1 FROM {{t}}shares s WHERE s.k = l.k AND s.expires > v_now) END
			ORDER BY l.k LIMIT a_lim)
		UNION (SELECT DISTINCT s.k FROM {{t}}shares s WHERE s.k > a_after
			AND NOT EXISTS (SELECT 1 FROM {{t}}locks l WHERE l.k = s.k) ORDER BY s.k LIMIT a_lim)
		UNION (SELECT DISTINCT w.k FROM {{t}}waiters w WHERE w.k > a_after
			AND NOT EXISTS (SELECT 1 FROM {{t}}locks l WHERE l.k = w.k) ORDER BY w.k LIMIT a_lim)
	) x ORDER BY x.k LIMIT a_lim;
	COMMIT;
	END work;
END
//

-- tidy removes what expired of k and hands it on (serve), unless another
-- statement holds its row; shares and queue entries left without their
-- key's row get it back first.
DROP PROCEDURE IF EXISTS {{t}}tidy
//
CREATE PROCEDURE {{t}}tidy(a_k VARBINARY(1025), a_claim BIGINT)
SQL SECURITY INVOKER MODIFIES SQL DATA
body: BEGIN
	DECLARE v_now, v_token, v_expires BIGINT;
	DECLARE v_owner VARBINARY(255);
	DECLARE v_n BIGINT;
	DECLARE v_wake VARBINARY(4096) DEFAULT '';
	DECLARE v_denied BOOLEAN DEFAULT FALSE;
	{{clock}}
	{{begin}}
	work: BEGIN
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	SELECT COUNT(*) INTO v_n FROM {{t}}locks WHERE k = a_k FOR UPDATE SKIP LOCKED;
	IF v_n = 0 THEN
		SELECT COUNT(*) INTO v_n FROM {{t}}locks WHERE k = a_k;
		IF v_n > 0 THEN
			COMMIT;
			LEAVE body; -- busy: another statement holds the row
		END IF;
		CALL {{t}}lock_key(a_k, v_now, v_owner, v_token, v_expires);
	END IF;
	CALL {{t}}serve(a_k, a_claim, v_now, TRUE, v_wake);
	COMMIT;
	IF v_wake <> '' THEN
		CALL {{t}}ring(v_wake, '', v_denied);
	END IF;
	END work;
END
//

-- wait is the statement an executor's wake connection runs while its
-- waiters wait: it takes (returns and deletes) the executor m's wakes, or,
-- when there are none, says that its bell sleeps (a row of bells,
-- committed before it looks again), and waits up to a_secs seconds first (for a named lock
-- the executor's anchor connection holds, so that only a ring or the time
-- ends the wait). a_call numbers
-- the executor's calls: a call marks the rows it takes with it, so that a
-- wake committed meanwhile stays for the next call. A release that serves
-- m interrupts the call (see ring) after its commit: a wake that comes
-- while a call runs ends it (the caller rolls back what it took, and the
-- next call takes the rows), and one that comes between two calls is
-- taken by the next.
DROP PROCEDURE IF EXISTS {{t}}wait
//
CREATE PROCEDURE {{t}}wait(a_m VARBINARY(33), a_call BIGINT, a_secs DOUBLE)
SQL SECURITY INVOKER MODIFIES SQL DATA
BEGIN
	DECLARE v_slept INT;
	DECLARE v_now, v_n BIGINT;
	{{clock}}
	{{begin}}
	work: BEGIN
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	UPDATE {{t}}wakes SET taken = a_call WHERE member = a_m AND taken = 0;
	SELECT COUNT(*) INTO v_n FROM {{t}}wakes WHERE member = a_m AND taken = a_call;
	IF v_n = 0 THEN
		-- Nothing to take: say the bell sleeps, then look again (a wake
		-- committed before the flag was rang nobody).
		INSERT INTO {{t}}bells (member, sleeping, at) VALUES (a_m, TRUE, v_now)
		ON DUPLICATE KEY UPDATE sleeping = TRUE, at = v_now;
		COMMIT;
		{{begin}}
		UPDATE {{t}}wakes SET taken = a_call WHERE member = a_m AND taken = 0;
		SELECT COUNT(*) INTO v_n FROM {{t}}wakes WHERE member = a_m AND taken = a_call;
	END IF;
	IF v_n = 0 THEN
		COMMIT;
		-- Wait for a lock the executor's anchor connection holds: until a
		-- ring interrupts the wait, or a_secs pass. Not SLEEP(): MariaDB
		-- 10.11 stalled KILLs of sleeping statements for up to 23 s, and
		-- kills a statement waiting for a named lock at once.
		SET v_slept = GET_LOCK(CONCAT('{{w}}', a_m, ':z'), a_secs);
		IF v_slept = 1 THEN
			DO RELEASE_LOCK(CONCAT('{{w}}', a_m, ':z'));
			SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'lock4go: wake anchor lost';
		END IF;
		{{begin}}
		UPDATE {{t}}wakes SET taken = a_call WHERE member = a_m AND taken = 0;
	END IF;
	SELECT k, kind FROM {{t}}wakes WHERE member = a_m AND taken = a_call;
	DELETE FROM {{t}}wakes WHERE member = a_m AND taken = a_call;
	COMMIT;
	END work;
END
//

DELIMITER ;
