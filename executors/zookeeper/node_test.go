package zookeeper

import (
	"regexp"
	"slices"
	"testing"
)

func TestQueue_ordersBySequence(t *testing.T) {
	children := []string{
		"_c_ffffffff-0000-4000-8000-000000000000-lock-0000000003",
		"_c_00000000-0000-4000-8000-000000000000-lock-0000000010",
		"_c_0123abcd45ef6789abcdef0123456789-lock-0000000001", // zk.Lock's hex GUID
		"_c_99999999-0000-4000-8000-000000000000-lock-0000000002",
		"not-a-lock-node",
	}
	got := queue(children)
	want := []string{children[2], children[3], children[0], children[1]}
	if !slices.Equal(got, want) {
		t.Fatalf("queue = %q, want %q", got, want)
	}
}

func TestSeqOf(t *testing.T) {
	tests := []struct {
		name string
		seq  int64
		ok   bool
	}{
		{"_c_x-lock-0000000042", 42, true},
		{"lock-0000000007", 7, true},
		{"__lock__0000000005", 5, true}, // kazoo
		{"lock-", 0, false},
		{"lock-00000000x1", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			seq, ok := seqOf(tc.name)
			if seq != tc.seq || ok != tc.ok {
				t.Fatalf("seqOf(%q) = %d, %v, want %d, %v", tc.name, seq, ok, tc.seq, tc.ok)
			}
		})
	}
}

func TestNewGUID(t *testing.T) {
	re := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	a, b := newGUID(), newGUID()
	if !re.MatchString(a) || a == b {
		t.Fatalf("newGUID() = %q, %q", a, b)
	}
	if name := "_c_" + a + "-lock-0000000001"; !hasGUID(name, a) || hasGUID(name, b) {
		t.Fatalf("hasGUID wrong for %q", name)
	}
}
