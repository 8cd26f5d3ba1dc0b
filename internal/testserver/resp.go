package testserver

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
)

// dialFunc connects to a server for one probe or command.
type dialFunc func(ctx context.Context, addr string) (net.Conn, error)

// tlsDial returns a dialFunc that connects with TLS under cfg (verifying
// the server as the address's host unless cfg names a server) and completes
// the handshake within ctx's deadline (or probeTimeout).
func tlsDial(cfg *tls.Config) dialFunc {
	return func(ctx context.Context, addr string) (net.Conn, error) {
		raw, err := dial(ctx, addr)
		if err != nil {
			return nil, err
		}
		c := cfg
		if c.ServerName == "" {
			c = cfg.Clone()
			c.ServerName, _, _ = net.SplitHostPort(addr)
		}
		conn := tls.Client(raw, c)
		if err := conn.HandshakeContext(ctx); err != nil {
			_ = raw.Close()
			return nil, err
		}
		return conn, nil
	}
}

// redisDo sends one command over a connection made by d and returns its
// reply: a string for a status, an integer or a bulk string, nil for a nil
// reply, and []any for an array. An error reply is returned as an error.
func redisDo(ctx context.Context, d dialFunc, addr string, args ...string) (any, error) {
	conn, err := d(ctx, addr)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var req bytes.Buffer
	fmt.Fprintf(&req, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&req, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := conn.Write(req.Bytes()); err != nil {
		return nil, err
	}
	return readReply(bufio.NewReader(conn))
}

// readReply reads one RESP2 reply.
func readReply(r *bufio.Reader) (any, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return nil, errors.New("empty reply")
	}
	switch line[0] {
	case '+', ':':
		return line[1:], nil
	case '-':
		return nil, errors.New(line[1:])
	case '$':
		n, err := strconv.Atoi(line[1:])
		if err != nil {
			return nil, fmt.Errorf("bad bulk reply %q", line)
		}
		if n < 0 {
			return nil, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		return string(buf[:n]), nil
	case '*':
		n, err := strconv.Atoi(line[1:])
		if err != nil {
			return nil, fmt.Errorf("bad array reply %q", line)
		}
		if n < 0 {
			return nil, nil
		}
		items := make([]any, n)
		for i := range items {
			if items[i], err = readReply(r); err != nil {
				return nil, err
			}
		}
		return items, nil
	default:
		return nil, fmt.Errorf("unexpected reply %q", line)
	}
}

// redisCommand sends one command to the Redis server at addr and returns its
// reply as text: a status, an integer or a bulk string. An error reply is
// returned as an error.
func redisCommand(ctx context.Context, addr string, args ...string) (string, error) {
	return redisText(redisDo(ctx, dial, addr, args...))
}

// redisText turns a scalar reply into text.
func redisText(reply any, err error) (string, error) {
	if err != nil {
		return "", err
	}
	s, ok := reply.(string)
	if !ok {
		return "", fmt.Errorf("reply %v is not a string", reply)
	}
	return s, nil
}

// redisStrings turns an array reply of scalars into strings (a nil element
// becomes ""); a nil reply gives nil.
func redisStrings(reply any, err error) ([]string, error) {
	if err != nil || reply == nil {
		return nil, err
	}
	items, ok := reply.([]any)
	if !ok {
		return nil, fmt.Errorf("reply %v is not an array", reply)
	}
	out := make([]string, len(items))
	for i, it := range items {
		if it == nil {
			continue
		}
		s, ok := it.(string)
		if !ok {
			return nil, fmt.Errorf("array element %v is not a string", it)
		}
		out[i] = s
	}
	return out, nil
}
