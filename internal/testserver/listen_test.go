package testserver

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"testing"
)

// TestListensOn tells the process holding a listening port from another
// process, which a readiness probe cannot.
func TestListensOn(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	other := exec.Command("sleep", "60")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Process.Kill(); _ = other.Wait() })

	for _, tc := range []struct {
		name string
		pid  int
		want bool
	}{
		{"holder", os.Getpid(), true},
		{"other process", other.Process.Pid, false},
	} {
		ok, err := listensOn(tc.pid, port)
		if err != nil || ok != tc.want {
			t.Errorf("%s: listensOn = %v, %v; want %v", tc.name, ok, err, tc.want)
		}
	}
	l.Close()
	if ok, err := listensOn(os.Getpid(), port); err != nil || ok {
		t.Errorf("after Close: listensOn = %v, %v; want false", ok, err)
	}
}

// TestServer_start_portAnsweredByAnother starts redis-server on a port
// where another process already answers PING, as when a server another
// test restarted took the port between freePorts and the bind: the start
// must fail with errAddrInUse (so that the Start functions pick new ports),
// not count the other process's answer as ready.
func TestServer_start_portAnsweredByAnother(t *testing.T) {
	path, err := exec.LookPath("redis-server")
	if err != nil {
		Check(t, notInstalled("redis-server"))
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			_, _ = c.Read(make([]byte, 64))
			_, _ = c.Write([]byte("+PONG\r\n"))
			c.Close()
		}
	}()
	s := newRedis(path, t.TempDir(), l.Addr().(*net.TCPAddr).Port, nil)
	if err := s.start(); !errors.Is(err, errAddrInUse) {
		_ = s.Stop()
		t.Fatalf("start on a port another process answers on = %v, want errAddrInUse", err)
	}
}
