package testserver

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// errNoProcNet means /proc/net/tcp cannot be read (not Linux): who listens
// on a port is then unknown.
var errNoProcNet = errors.New("testserver: /proc/net/tcp not readable")

// listensOn reports whether process pid holds a listening TCP socket on
// port, from /proc/net/tcp and /proc/PID/fd. A readiness probe
// alone cannot tell the server we started from another process that took
// its port between freePorts and the server's bind (a server another test
// restarted on that port, say): the probe then succeeds while ours exits
// with "address already in use".
func listensOn(pid, port int) (bool, error) {
	inodes, err := listeningInodes(port)
	if err != nil {
		return false, err
	}
	if len(inodes) == 0 {
		return false, nil
	}
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	fds, err := os.ReadDir(dir)
	if err != nil {
		return false, err
	}
	for _, fd := range fds {
		target, err := os.Readlink(dir + "/" + fd.Name())
		if err != nil {
			continue // closed meanwhile
		}
		if inode, ok := strings.CutPrefix(target, "socket:["); ok && inodes[strings.TrimSuffix(inode, "]")] {
			return true, nil
		}
	}
	return false, nil
}

// listeningInodes returns the socket inodes of the TCP listeners on port,
// IPv4 or IPv6 (Java listens on 127.0.0.1 through an IPv6 socket, as
// ::ffff:127.0.0.1).
func listeningInodes(port int) (map[string]bool, error) {
	inodes := map[string]bool{}
	suffix := fmt.Sprintf(":%04X", port)
	for i, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			if i == 0 {
				return nil, fmt.Errorf("%w: %w", errNoProcNet, err)
			}
			continue // no IPv6
		}
		err = scanListeners(f, suffix, inodes)
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	return inodes, nil
}

// scanListeners adds to inodes the inode of every listening socket in a
// /proc/net/tcp table whose local address ends with suffix (":PORT").
func scanListeners(f *os.File, suffix string, inodes map[string]bool) error {
	const listen = "0A"
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		// sl local rem st tx:rx tr:when retrnsmt uid timeout inode ...
		fields := strings.Fields(sc.Text())
		if len(fields) < 10 || !strings.HasSuffix(fields[1], suffix) || fields[3] != listen {
			continue
		}
		if _, err := strconv.ParseUint(fields[9], 10, 64); err == nil {
			inodes[fields[9]] = true
		}
	}
	return sc.Err()
}
