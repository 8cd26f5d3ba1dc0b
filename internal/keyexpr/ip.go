package keyexpr

import (
	"fmt"
	"net"
	"net/netip"

	"github.com/lock4go/lock4go/executor"
)

// IP returns the key part of a peer address, "host:port" or a bare host:
// the IP in its canonical form (see [PeerIP]).
func IP(addr string) (string, error) {
	a, err := PeerIP(addr)
	if err != nil {
		return "", err
	}
	return a.String(), nil
}

// PeerIP returns the IP of a peer address, "host:port" or a bare host,
// IPv4-mapped IPv6 addresses as IPv4 (one key per client on dual-stack
// listeners). An address that is not an IP (a unix socket, whose peers are
// all "@" or "") is an error wrapping executor.ErrInvalidKey: such peers
// have no address to tell them apart, and one shared key for all of them
// would be a silent shared lock.
func PeerIP(addr string) (netip.Addr, error) {
	host := addr
	if h, _, err := net.SplitHostPort(addr); err == nil {
		host = h
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("peer address %.60q is not an IP (a unix socket?): %w", addr, executor.ErrInvalidKey)
	}
	return a.Unmap(), nil
}
