package keybuilder

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/keyexpr"
)

// clientIP returns the client address of r: the host of r.RemoteAddr, or,
// when that is a trusted proxy, the address its forwarding header names.
// Only the one configured header is read: a proxy that sets X-Real-IP but
// passes a client's own X-Forwarded-For through must not let the client
// pick its key by falling back from one header to the other.
//
// A RemoteAddr that is not an IP (a unix socket's "@" or "", shared by all
// its clients) is an error wrapping executor.ErrInvalidKey: no address
// tells those clients apart.
func clientIP(r *http.Request, o *options) (string, error) {
	addr, err := keyexpr.PeerIP(r.RemoteAddr)
	if err != nil {
		return "", err
	}
	if !isTrusted(addr, o.trusted) {
		return addr.String(), nil
	}
	vals := r.Header.Values(o.ipHeader)
	if len(vals) == 0 {
		return addr.String(), nil // the proxy itself is the client
	}
	hops := strings.Split(strings.Join(vals, ","), ",")
	// Walk from the nearest hop back, skipping our own proxies: the first
	// untrusted address is the client (entries left of it are client-made).
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := parseHop(hops[i])
		if err != nil {
			return "", err
		}
		if !isTrusted(a, o.trusted) || i == 0 {
			return a.String(), nil
		}
	}
	return addr.String(), nil // not reached: the loop returns at i == 0
}

func parseHop(s string) (netip.Addr, error) {
	s = strings.TrimSpace(s)
	a, err := netip.ParseAddr(s)
	if err != nil {
		if ap, err2 := netip.ParseAddrPort(s); err2 == nil {
			return ap.Addr().Unmap(), nil
		}
		return netip.Addr{}, fmt.Errorf("forwarded address %q from a trusted proxy is not an IP: %w", s, executor.ErrInvalidKey)
	}
	return a.Unmap(), nil
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
