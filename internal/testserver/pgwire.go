package testserver

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"time"
)

// postgresPing succeeds when the server (or PgBouncer) at addr runs a
// query: it speaks the frontend protocol itself (a startup message for
// the user and database "postgres", which trust authentication lets in,
// then the simple query SELECT 1), so that the package links no driver.
func postgresPing(ctx context.Context, addr string) error {
	conn, err := dial(ctx, addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(probeTimeout)
	}
	_ = conn.SetDeadline(deadline)
	startup := pgMessage(0, binary.BigEndian.AppendUint32(nil, 3<<16), "user", "postgres", "database", "postgres", "")
	if _, err := conn.Write(startup); err != nil {
		return err
	}
	r := bufio.NewReader(conn)
	if err := pgUntilReady(r); err != nil {
		return err
	}
	if _, err := conn.Write(pgMessage('Q', nil, "SELECT 1")); err != nil {
		return err
	}
	if err := pgUntilReady(r); err != nil {
		return err
	}
	_, _ = conn.Write(pgMessage('X', nil))
	return nil
}

// pgMessage returns a frontend message of type typ (0 for the startup
// message, which has none): its length, then head, then each string with
// its NUL.
func pgMessage(typ byte, head []byte, strs ...string) []byte {
	body := head
	for _, s := range strs {
		body = append(append(body, s...), 0)
	}
	var m []byte
	if typ != 0 {
		m = append(m, typ)
	}
	m = binary.BigEndian.AppendUint32(m, uint32(len(body)+4))
	return append(m, body...)
}

// pgUntilReady reads backend messages until ReadyForQuery. An
// ErrorResponse, or an authentication request other than "OK" (trust),
// is an error.
func pgUntilReady(r *bufio.Reader) error {
	for {
		var head [5]byte
		if _, err := io.ReadFull(r, head[:]); err != nil {
			return err
		}
		body := make([]byte, binary.BigEndian.Uint32(head[1:])-4)
		if _, err := io.ReadFull(r, body); err != nil {
			return err
		}
		switch head[0] {
		case 'Z':
			return nil
		case 'E':
			return fmt.Errorf("testserver: postgres: %q", body)
		case 'R':
			if len(body) < 4 || binary.BigEndian.Uint32(body) != 0 {
				return fmt.Errorf("testserver: postgres asks for a password: trust authentication expected")
			}
		}
	}
}
