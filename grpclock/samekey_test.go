package grpclock

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/lock4go/lock4go/keybuilder"
)

// orderID is a named string type with a String method that says something
// else: keyed by its value everywhere.
type orderID string

func (o orderID) String() string { return "order " + string(o) }

// payment is the Go side of the Pay message: what a service passes to
// lock4go.Locked, and what encoding/json writes as an HTTP body. Kind is a
// generated proto enum, which has a String method (its name); OptKind is
// the pointer a proto3 optional (or proto2) enum field is in generated
// code; OptCount a pointer to a named integer with a String method;
// Wrapped and WrappedName well-known wrappers, as generated code has them.
type payment struct {
	OrderID     orderID                                 `json:"orderId"`
	Kind        descriptorpb.FieldDescriptorProto_Type  `json:"kind"`
	Amount      float64                                 `json:"amount"`
	Rate        float32                                 `json:"rate"`
	Count       int64                                   `json:"count"`
	Urgent      bool                                    `json:"urgent"`
	Token       []byte                                  `json:"token"`
	Seq         uint32                                  `json:"seq"`
	Neg         float64                                 `json:"neg"`
	OptCount    *time.Duration                          `json:"optCount"`
	OptKind     *descriptorpb.FieldDescriptorProto_Type `json:"optKind"`
	Ref         *orderID                                `json:"ref"`
	Wrapped     *wrapperspb.Int64Value                  `json:"wrapped"`
	WrappedName *wrapperspb.StringValue                 `json:"wrappedName"`
}

// fields returns p as the fields of a Pay message.
func (p payment) fields() map[string]any {
	return map[string]any{
		"order_id": string(p.OrderID), "kind": int32(p.Kind), "amount": p.Amount, "rate": p.Rate, "count": p.Count,
		"urgent": p.Urgent, "token": p.Token, "seq": p.Seq, "neg": p.Neg, "opt_count": int64(*p.OptCount),
		"opt_kind": int32(*p.OptKind), "ref": string(*p.Ref), "wrapped": p.Wrapped.Value, "wrapped_name": p.WrappedName.Value,
	}
}

// sameKeyFields are the fields compared: Go name, JSON name, proto name,
// whether "|int" and "|float" apply, and the path encoding/json writes
// the value at when it is not the JSON name (a wrapper's "value").
var sameKeyFields = []struct {
	goName, jsonName, protoName string
	number                      bool
	goJSON                      string
}{
	{"OrderID", "orderId", "order_id", false, ""}, {"Kind", "kind", "kind", true, ""},
	{"Amount", "amount", "amount", true, ""}, {"Rate", "rate", "rate", true, ""},
	{"Count", "count", "count", true, ""}, {"Urgent", "urgent", "urgent", false, ""},
	{"Token", "token", "token", false, ""}, {"Seq", "seq", "seq", true, ""}, {"Neg", "neg", "neg", true, ""},
	{"OptCount", "optCount", "opt_count", true, ""}, {"OptKind", "optKind", "opt_kind", true, ""},
	{"Ref", "ref", "ref", false, ""}, {"Wrapped", "wrapped", "wrapped", true, "wrapped.value"},
	{"WrappedName", "wrappedName", "wrapped_name", false, "wrappedName.value"},
}

// leaves returns p with the pointer and wrapper leaves set from n.
func (p payment) leaves(n int64, name string) payment {
	d, k, ref := time.Duration(n), descriptorpb.FieldDescriptorProto_Type(1+n%18), orderID("r"+name)
	p.OptCount, p.OptKind, p.Ref = &d, &k, &ref
	p.Wrapped, p.WrappedName = wrapperspb.Int64(n), wrapperspb.String(name)
	return p
}

// TestSameKey_everyBuilder builds the key of one request through every
// builder: the HTTP JSON builder over the body encoding/json writes from
// the Go struct and over the body protojson writes from the message (enums
// as numbers), the gRPC builder over the proto message, and
// keybuilder.Fields over the Go struct (lock4go.Locked). One value must
// give one key whichever builds it, or a Locked job and a gRPC call on the
// same order run at once: pointer leaves (an optional enum, a
// *time.Duration, a pointer to a named string with a String method) and
// wrappers included.
func TestSameKey_everyBuilder(t *testing.T) {
	md := payDescriptor(t)
	for _, p := range sameKeyCases() {
		msg := payMessage(md, p.fields())
		goBody, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		pjBody, err := protojson.MarshalOptions{UseEnumNumbers: true}.Marshal(msg)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range sameKeyFields {
			convs := []string{""}
			if f.number {
				convs = append(convs, "|float")
			}
			for _, conv := range convs {
				goPath := f.jsonName
				if f.goJSON != "" {
					goPath = f.goJSON
				}
				keys := map[string]string{
					"http/encoding-json": httpKey(t, "json."+goPath+conv, goBody),
					"http/protojson":     httpKey(t, "json."+f.jsonName+conv, pjBody),
					"grpc":               grpcKey(t, "req."+f.protoName+conv, msg),
				}
				if conv == "" {
					keys["Fields"] = fieldsKey(t, f.goName, p)
				}
				for src, k := range keys {
					if k != keys["grpc"] {
						t.Fatalf("%s%s of %+v: %s keys %q, grpc %q\nencoding/json: %s\nprotojson: %s",
							f.goName, conv, p, src, k, keys["grpc"], goBody, pjBody)
					}
				}
			}
		}
	}
}

// sameKeyCases returns the payments compared: edge values, then random
// ones.
func sameKeyCases() []payment {
	cases := []payment{
		payment{OrderID: "a:b#{c}%", Kind: descriptorpb.FieldDescriptorProto_TYPE_STRING, Amount: 1500000, Rate: 0.1, Count: -7,
			Urgent: true, Token: []byte{0xff, ':'}, Seq: 4000000000, Neg: math.Copysign(0, -1)}.leaves(9, "x:y"),
		payment{OrderID: "é世", Kind: 77, Amount: 1.5, Rate: 1e-7, Count: 9007199254740993, Urgent: true, Token: []byte("x"), Seq: 1,
			Neg: -1e-300}.leaves(9007199254740993, "é"),
		payment{OrderID: "o", Kind: 1, Amount: 1e21, Rate: 3.4e38, Count: math.MinInt64, Urgent: true, Token: []byte{0}, Seq: 7,
			Neg: -1e300}.leaves(math.MinInt64, "o"),
	}
	r := rand.New(rand.NewPCG(5, 6))
	for range 300 {
		cases = append(cases, payment{
			OrderID: orderID(rune('a' + r.IntN(26))), Kind: descriptorpb.FieldDescriptorProto_Type(1 + r.IntN(18)),
			Amount: randomFloat(r), Rate: float32(randomFloat(r)), Count: r.Int64() - r.Int64(), Urgent: true,
			Token: []byte{byte(r.IntN(256))}, Seq: 1 + r.Uint32N(1<<31), Neg: -randomFloat(r),
		}.leaves(1+r.Int64N(1<<62), string(rune('a'+r.IntN(26)))))
	}
	return cases
}

// randomFloat returns a finite float64 of any magnitude, often whole.
func randomFloat(r *rand.Rand) float64 {
	f := math.Ldexp(1+r.Float64(), r.IntN(140)-70)
	if r.IntN(3) == 0 {
		f = math.Trunc(f) + 1
	}
	return f
}

func httpKey(t *testing.T, expr string, body []byte) string {
	t.Helper()
	b, err := keybuilder.NewHTTP("lock4go", "pay", []string{expr})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", "/pay", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	k, err := b.Key(req)
	if err != nil {
		t.Fatalf("HTTP %s of %s: %v", expr, body, err)
	}
	return k
}

func grpcKey(t *testing.T, expr string, msg protoreflect.ProtoMessage) string {
	t.Helper()
	o, _ := buildOptions(nil)
	b, err := newKeyBuilder("lock4go", "pay", []string{expr}, &o)
	if err != nil {
		t.Fatal(err)
	}
	k, err := b.key(context.Background(), unaryCall, msg)
	if err != nil {
		t.Fatalf("gRPC %s: %v", expr, err)
	}
	return k
}

func fieldsKey(t *testing.T, path string, p payment) string {
	t.Helper()
	key, err := keybuilder.Fields[payment]("lock4go", "pay", []string{path})
	if err != nil {
		t.Fatal(err)
	}
	k, err := key(p)
	if err != nil {
		t.Fatalf("Fields %s: %v", path, err)
	}
	return k
}
