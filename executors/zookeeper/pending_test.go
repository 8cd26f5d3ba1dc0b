package zookeeper

import "testing"

// TestPending_giveUp checks who deletes an abandoned attempt's node: the
// caller schedules a GUID search when it gives up while the attempt is busy
// (calls in flight), never while it is idle, parked (it wakes and deletes
// its node itself), deleting its node or done; and an abandoned attempt
// issues no create and parks no more.
func TestPending_giveUp(t *testing.T) {
	tests := []struct {
		name     string
		to       func(p *pending) // brings p to the phase under test
		wantReap bool
	}{
		{"idle", func(*pending) {}, false},
		{"creating", func(p *pending) { p.beginCreate() }, true},
		{"created", func(p *pending) { p.beginCreate(); p.endCreate() }, true},
		{"parked", func(p *pending) { p.beginCreate(); p.endCreate(); p.park() }, false},
		{"woken", func(p *pending) { p.beginCreate(); p.endCreate(); p.park(); p.unpark(true) }, true},
		{"woken to stop", func(p *pending) { p.beginCreate(); p.endCreate(); p.park(); p.unpark(false) }, false},
		{"removing", func(p *pending) { p.beginCreate(); p.endCreate(); p.removing() }, false},
		{"done", func(p *pending) { p.beginCreate(); p.endCreate(); p.finish() }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &pending{}
			tc.to(p)
			creating := p.isCreating()
			if got := p.giveUp(); got != tc.wantReap {
				t.Fatalf("giveUp() = %v, want %v", got, tc.wantReap)
			}
			if !p.isAbandoned() || p.isCreating() != creating {
				t.Fatalf("abandoned %v, creating %v (was %v)", p.isAbandoned(), p.isCreating(), creating)
			}
			if p.beginCreate() {
				t.Fatal("beginCreate after giveUp: a new create would outlive its reaper")
			}
			if p.park() {
				t.Fatal("park after giveUp: nobody would delete the node")
			}
			if p.unpark(true) {
				t.Fatal("unpark after giveUp reports the caller still there")
			}
		})
	}
	p := &pending{}
	p.beginCreate()
	p.giveUp()
	if !p.endCreate() {
		t.Fatal("endCreate does not report the caller gone")
	}
}
