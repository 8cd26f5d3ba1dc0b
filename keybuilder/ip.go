package keybuilder

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/lock4go/lock4go/executor"
)

// clientIP returns the client address of r: the host of r.RemoteAddr, or,
// when that is a trusted proxy, the address its forwarding headers name.
func clientIP(r *http.Request, trusted []netip.Prefix) (string, error) {
	host := r.RemoteAddr
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return host, nil // not an IP (a unix socket, a test): use it as is
	}
	addr = addr.Unmap()
	if !isTrusted(addr, trusted) {
		return addr.String(), nil
	}
	if xff := r.Header.Values("X-Forwarded-For"); len(xff) > 0 {
		hops := strings.Split(strings.Join(xff, ","), ",")
		// Walk from the nearest hop back, skipping our own proxies: the first
		// untrusted address is the client (entries left of it are client-made).
		for i := len(hops) - 1; i >= 0; i-- {
			a, err := parseHop(hops[i])
			if err != nil {
				return "", err
			}
			if !isTrusted(a, trusted) || i == 0 {
				return a.String(), nil
			}
		}
	}
	if xr := r.Header.Get("X-Real-IP"); xr != "" {
		a, err := parseHop(xr)
		if err != nil {
			return "", err
		}
		return a.String(), nil
	}
	return addr.String(), nil
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
