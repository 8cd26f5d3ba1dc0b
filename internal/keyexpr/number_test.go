package keyexpr

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lock4go/lock4go/executor"
)

// TestFloat_asJSONKeysIt checks the invariant that makes typed floats
// (proto doubles and floats, Go float fields) key as the JSON builder keys
// the number encoding/json writes for them: Float(f) ==
// CanonicalNumber(json.Marshal(f)), for float64 and float32 alike.
func TestFloat_asJSONKeysIt(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	special := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1.5e6, 1e21, 1e20, 3.4e38, 1 << 53, 1<<53 + 2, math.MaxFloat64, math.SmallestNonzeroFloat64, 1e-7, 123456789012345680000}
	for i := range 20000 {
		var f float64
		if i < len(special) {
			f = special[i]
		} else {
			f = math.Ldexp(r.Float64()+0.5, r.IntN(2000)-1000)
			if r.IntN(3) == 0 {
				f = math.Trunc(f)
			}
			if r.IntN(2) == 0 {
				f = -f
			}
		}
		checkFloat(t, f)
		checkFloat32(t, float32(f))
	}
}

// FuzzFloat_asJSONKeysIt is TestFloat_asJSONKeysIt over fuzzed bits.
func FuzzFloat_asJSONKeysIt(f *testing.F) {
	f.Add(math.Float64bits(3.4e38))
	f.Fuzz(func(t *testing.T, bits uint64) {
		checkFloat(t, math.Float64frombits(bits))
		checkFloat32(t, math.Float32frombits(uint32(bits)))
	})
}

func checkFloat(t *testing.T, f float64) {
	t.Helper()
	got, err := Float(f)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		if !errors.Is(err, executor.ErrInvalidKey) {
			t.Fatalf("Float(%v) = %q, %v; want ErrInvalidKey", f, got, err)
		}
		return
	}
	lit, _ := json.Marshal(f)
	want, werr := CanonicalNumber(string(lit))
	if err != nil || werr != nil || got != want {
		t.Fatalf("Float(%v) = %q, %v; JSON %s keys %q, %v", f, got, err, lit, want, werr)
	}
}

func checkFloat32(t *testing.T, f float32) {
	t.Helper()
	got, err := Float32(f)
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		if !errors.Is(err, executor.ErrInvalidKey) {
			t.Fatalf("Float32(%v) = %q, %v; want ErrInvalidKey", f, got, err)
		}
		return
	}
	lit, _ := json.Marshal(f)
	want, werr := CanonicalNumber(string(lit))
	if err != nil || werr != nil || got != want {
		t.Fatalf("Float32(%v) = %q, %v; JSON %s keys %q, %v", f, got, err, lit, want, werr)
	}
}
