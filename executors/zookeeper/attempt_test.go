package zookeeper

import "testing"

// TestAttemptState_abandon checks who deletes an abandoned attempt's node: the
// caller schedules a GUID search when it gives up while the attempt is busy
// (calls in flight), never while it is idle, parked (it wakes and deletes
// its node itself), deleting its node or done; and an abandoned attempt
// issues no create and parks no more.
func TestAttemptState_abandon(t *testing.T) {
	tests := []struct {
		name     string
		to       func(p *attemptState) // brings p to the phase under test
		wantVoid bool
	}{
		{"idle", func(*attemptState) {}, false},
		{"creating", func(p *attemptState) { p.beginCreate() }, true},
		{"created", func(p *attemptState) { p.beginCreate(); p.endCreate() }, true},
		{"parked", func(p *attemptState) { p.beginCreate(); p.endCreate(); p.park() }, false},
		{"woken", func(p *attemptState) { p.beginCreate(); p.endCreate(); p.park(); p.unpark(true) }, true},
		{"woken to stop", func(p *attemptState) { p.beginCreate(); p.endCreate(); p.park(); p.unpark(false) }, false},
		{"removing", func(p *attemptState) { p.beginCreate(); p.endCreate(); p.removing() }, false},
		{"done", func(p *attemptState) { p.beginCreate(); p.endCreate(); p.finish() }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &attemptState{}
			tc.to(p)
			creating := p.isCreating()
			if got := p.abandon(); got != tc.wantVoid {
				t.Fatalf("abandon() = %v, want %v", got, tc.wantVoid)
			}
			if !p.isAbandoned() || p.isCreating() != creating {
				t.Fatalf("abandoned %v, creating %v (was %v)", p.isAbandoned(), p.isCreating(), creating)
			}
			if p.beginCreate() {
				t.Fatal("beginCreate after abandon: a new create would outlive its void loop")
			}
			if p.park() {
				t.Fatal("park after abandon: nobody would delete the node")
			}
			if p.unpark(true) {
				t.Fatal("unpark after abandon reports the caller still there")
			}
		})
	}
	p := &attemptState{}
	p.beginCreate()
	p.abandon()
	if !p.endCreate() {
		t.Fatal("endCreate does not report the caller gone")
	}
}
