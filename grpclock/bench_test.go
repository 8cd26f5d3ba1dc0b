package grpclock

import (
	"context"
	"strings"
	"testing"

	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/protobuf/proto"
)

// BenchmarkBigField builds the key of a request whose key field is a 4 MiB
// string, plain or made of characters that are escaped, beside
// proto.Unmarshal of the same message (the cost the server pays anyway):
// with the part cap raised over it (the part is escaped straight into the
// hash of the key) and at the default cap (refused at once).
func BenchmarkBigField(b *testing.B) {
	for _, c := range []struct{ name, unit string }{{"plain", "x"}, {"escaped", ":"}} {
		req := &testpb.SimpleRequest{ResponseStatus: &testpb.EchoStatus{Message: strings.Repeat(c.unit, 4<<20)}}
		wire, err := proto.Marshal(req)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("unmarshal/"+c.name, func(b *testing.B) {
			b.SetBytes(int64(len(wire)))
			b.ReportAllocs()
			for b.Loop() {
				var m testpb.SimpleRequest
				if err := proto.Unmarshal(wire, &m); err != nil {
					b.Fatal(err)
				}
			}
		})
		for _, cap := range []struct {
			name string
			opts []Option
			fail bool
		}{{"hashed", []Option{WithMaxPartLen(8 << 20)}, false}, {"refused", nil, true}} {
			o, _ := buildOptions(cap.opts)
			kb, err := newKeyBuilder("lock4go", "", []string{"req.response_status.message"}, &o)
			if err != nil {
				b.Fatal(err)
			}
			b.Run("key-"+cap.name+"/"+c.name, func(b *testing.B) {
				b.SetBytes(int64(len(wire)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := kb.key(context.Background(), unaryCall, req); (err != nil) != cap.fail {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
