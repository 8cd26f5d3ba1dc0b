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

// TestQueue_ordersAcrossWrap orders nodes created after ZooKeeper's signed
// 32-bit counter turned negative after those created before.
func TestQueue_ordersAcrossWrap(t *testing.T) {
	const g = "_c_00000000-0000-4000-8000-000000000000-lock-"
	want := []string{
		g + "2147483646",
		g + "2147483647",
		g + "-2147483648",
		g + "-2147483647",
		g + "-1000000000",
		g + "-999999999",
		g + "-000000001",
	}
	children := slices.Clone(want)
	slices.Reverse(children)
	children[1], children[5] = children[5], children[1]
	if got := queue(children); !slices.Equal(got, want) {
		t.Fatalf("queue = %q, want %q", got, want)
	}
}

func TestSeqOf(t *testing.T) {
	tests := []struct {
		name string
		seq  int32
		ok   bool
	}{
		{"_c_x-lock-0000000042", 42, true},
		{"lock-0000000007", 7, true},
		{"__lock__0000000005", 5, true}, // kazoo
		{"_c_x-lock-2147483647", 2147483647, true},
		{"_c_x-lock-1000000000", 1000000000, true},
		{"_c_x-lock--2147483648", -2147483648, true},
		{"_c_x-lock--1000000000", -1000000000, true},
		{"_c_x-lock--000000001", -1, true},
		{"__lock__-000000001", -1, true},
		{"lock-", 0, false},
		{"lock-00000000x1", 0, false},
		{"not-a-lock-node", 0, false},
		{"_c_x-lock-2147483648", 0, false},  // beyond 32 bits
		{"_c_x-lock-00000000042", 0, false}, // not ZooKeeper's width
		{"_c_x-lock-42", 0, false},
		{"_c_x-lock--0000000001", 0, false},
		{"_c_x-lock-+000000001", 0, false},
		{"_c_x-lock--000000000", 0, false}, // 0 is written without a sign
		{"_c_x-lock--0999999999", 0, false},
		{"_c_x-lock--999999999", -999999999, true},
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
