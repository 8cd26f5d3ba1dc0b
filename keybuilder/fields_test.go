package keybuilder_test

import (
	"errors"
	"math"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/keybuilder"
)

type money int64

type account struct {
	ID    string
	Owner *person
}

type person struct{ Name string }

type base struct{ Tenant string }

type transfer struct {
	base
	From, To account
	Amount   money
	Rate     float64
	Small    float32
	Urgent   bool
	Seq      uint16
	Raw      []byte
	IP       netip.Addr // encoding.TextMarshaler
	Dur      time.Duration
	Ref      *string
	Tags     []string
	hidden   string
	Any      any
}

func TestFields(t *testing.T) {
	ref := "r:1"
	tr := transfer{
		base: base{Tenant: "acme"}, From: account{ID: "A", Owner: &person{Name: "ann"}}, To: account{ID: "B"},
		Amount: 1500, Rate: 1.50, Small: 0.1, Urgent: true, Seq: 7, Raw: []byte("raw"),
		IP: netip.MustParseAddr("10.0.0.1"), Dur: 1500 * time.Millisecond, Ref: &ref,
	}
	for _, c := range []struct {
		path, part string
	}{
		{"From.ID", "A"}, {"From.Owner.Name", "ann"}, {"Tenant", "acme"},
		{"Amount", "1500"}, {"Rate", "1.5"}, {"Small", "0.1"}, {"Urgent", "true"}, {"Seq", "7"},
		{"Raw", "cmF3"}, {"IP", "10.0.0.1"}, {"Dur", "1500000000"}, {"Ref", "r:1"},
	} {
		key, err := keybuilder.Fields[transfer]("lock4go", "t", []string{c.path})
		if err != nil {
			t.Fatalf("Fields(%q) = %v", c.path, err)
		}
		got, err := key(tr)
		want, _ := keybuilder.Join("lock4go", "t", c.part)
		if err != nil || got != want {
			t.Errorf("%s: key = %q, %v; want %q", c.path, got, err, want)
		}
	}

	// Several parts, through a pointer Req, agree with Join.
	key, err := keybuilder.Fields[*transfer]("lock4go", "transfer", []string{"From.ID", "To.ID", "Amount"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := key(&tr)
	want, _ := keybuilder.Join("lock4go", "transfer", "A", "B", "1500")
	if err != nil || got != want {
		t.Fatalf("key = %q, %v; want %q", got, err, want)
	}
	if _, err := key(nil); !errors.Is(err, executor.ErrInvalidKey) {
		t.Fatalf("nil Req = %v, want ErrInvalidKey", err)
	}
}

func TestFields_missingParts(t *testing.T) {
	for _, c := range []struct {
		path string
		tr   transfer
	}{
		{"From.ID", transfer{}},
		{"From.Owner.Name", transfer{From: account{ID: "A"}}},
		{"Ref", transfer{}},
		{"Rate", transfer{Rate: math.NaN()}},
		{"Rate", transfer{Rate: math.Inf(1)}},
		{"Raw", transfer{}},
		{"Any", transfer{}},
	} {
		key, err := keybuilder.Fields[transfer]("p", "n", []string{c.path})
		if err != nil {
			if c.path == "Any" && errors.Is(err, executor.ErrInvalidConfig) {
				continue // an interface leaf is refused at construction
			}
			t.Fatalf("Fields(%q) = %v", c.path, err)
		}
		if _, err := key(c.tr); !errors.Is(err, executor.ErrInvalidKey) || !strings.Contains(err.Error(), c.path) {
			t.Errorf("%s: error %v, want ErrInvalidKey naming the path", c.path, err)
		}
	}
}

func TestFields_badPaths(t *testing.T) {
	for _, path := range []string{"", "Nope", "From.Nope", "hidden", "base.Tenant", "Tags", "From", "Amount.X", "From..ID", "Any"} {
		if _, err := keybuilder.Fields[transfer]("p", "n", []string{path}); !errors.Is(err, executor.ErrInvalidConfig) {
			t.Errorf("Fields(%q) = %v, want ErrInvalidConfig", path, err)
		}
	}
	if _, err := keybuilder.Fields[int]("p", "n", []string{"X"}); !errors.Is(err, executor.ErrInvalidConfig) {
		t.Errorf("Fields of an int = %v, want ErrInvalidConfig", err)
	}
	if _, err := keybuilder.Fields[transfer]("p", "", nil); !errors.Is(err, executor.ErrInvalidConfig) {
		t.Errorf("empty name = %v, want ErrInvalidConfig", err)
	}
}

func TestFields_escapingAndLength(t *testing.T) {
	key, err := keybuilder.Fields[account]("lock4go", "acct", []string{"ID"})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := key(account{ID: "a:b#{c}%"})
	if want, _ := keybuilder.Join("lock4go", "acct", "a:b#{c}%"); got != want || strings.ContainsAny(got[len("lock4go:acct#"):], ":#{}") {
		t.Fatalf("escaped key = %q, want %q", got, want)
	}
	long, _ := key(account{ID: strings.Repeat("x", 2000)})
	if len(long) > keybuilder.DefaultMaxKeyLen {
		t.Fatalf("long key of %d bytes", len(long))
	}
	one, err := keybuilder.Fields[account]("lock4go", "all", nil)
	if err != nil {
		t.Fatal(err)
	}
	if k, _ := one(account{}); k != "lock4go:all" {
		t.Fatalf("no paths: %q", k)
	}
}

func BenchmarkFields(b *testing.B) {
	key, err := keybuilder.Fields[*transfer]("lock4go", "transfer", []string{"From.ID", "To.ID"})
	if err != nil {
		b.Fatal(err)
	}
	tr := &transfer{From: account{ID: "A"}, To: account{ID: "B"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := key(tr); err != nil {
			b.Fatal(err)
		}
	}
}
