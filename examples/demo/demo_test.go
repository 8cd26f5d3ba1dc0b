package main

import (
	"testing"
	"time"
)

// The demo's main job on the embedded etcd, with a small load: it must end
// without an overlap, an unexpected failure, or a lost lock going unnoticed.
func TestRun_embeddedEtcd(t *testing.T) {
	cfg := config{clients: 8, requests: 120, orders: 3, work: time.Millisecond, acquireTimeout: 5 * time.Second}
	if err := run(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
}
