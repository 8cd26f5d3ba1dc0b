package keybuilder

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// clusterSlot returns the Redis Cluster hash slot of key: CRC-16/XMODEM of
// its hash tag (the bytes between the first "{" and the first "}" after it,
// if not empty) or of the whole key, modulo 16384.
func clusterSlot(key string) int {
	if s := strings.IndexByte(key, '{'); s >= 0 {
		if e := strings.IndexByte(key[s+1:], '}'); e > 0 {
			key = key[s+1 : s+1+e]
		}
	}
	var crc uint16
	for i := 0; i < len(key); i++ {
		crc ^= uint16(key[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return int(crc) % 16384
}

func TestClusterSlot_vectors(t *testing.T) {
	for key, want := range map[string]int{"123456789": 0x31C3, "foo": 12182, "{user1000}.following": 3443, "foo{}{bar}": 8363} {
		if got := clusterSlot(key); got != want {
			t.Errorf("clusterSlot(%q) = %d, want %d", key, got, want)
		}
	}
}

// TestHTTP_Key_spreadsOverSlots checks that the keys of one route, named
// after its pattern (whose wildcards are in braces), spread over Redis
// Cluster slots instead of all hashing to the slot of "id".
func TestHTTP_Key_spreadsOverSlots(t *testing.T) {
	for _, tt := range []struct{ name, keyName, query string }{
		{"route pattern", "", ""},
		{"braces in a part", "pay", "?x={x}"}, // a client must not pick the slot
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, err := NewHTTP("lock4go", tt.keyName, []string{"query.x", "path.id"})
			if err != nil {
				t.Fatal(err)
			}
			slots := map[int]bool{}
			mux := http.NewServeMux()
			mux.HandleFunc("POST /orders/{id}/pay", func(w http.ResponseWriter, r *http.Request) {
				k, err := b.Key(r)
				if err != nil {
					t.Fatal(err)
				}
				if strings.ContainsAny(k, "{}") && len(slots) == 0 {
					t.Errorf("key %q has a brace", k)
				}
				slots[clusterSlot(k)] = true
			})
			const n = 1000
			for i := range n {
				q := tt.query
				if q == "" {
					q = "?x=1"
				}
				mux.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/orders/"+strconv.Itoa(i)+"/pay"+q, nil))
			}
			// 1000 keys over 16384 slots fill about 970 of them.
			if len(slots) < 900 {
				t.Fatalf("the keys of %d requests fall in %d slots, want at least 900", n, len(slots))
			}
		})
	}
}
