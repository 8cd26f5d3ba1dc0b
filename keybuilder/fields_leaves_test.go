package keybuilder_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/keybuilder"
)

// status is an enum with a String method, as generated code has.
type status int32

func (s status) String() string { return [...]string{"NEW", "PAID"}[s] }

// label is a named string whose String says something else.
type label string

func (l label) String() string { return "label " + string(l) }

type meta struct{ OrderID string }

type leaves struct {
	*meta
	Status    *status
	Dur       *time.Duration
	Label     *label
	PtrPtr    **status
	Type      *descriptorpb.FieldDescriptorProto_Type // a proto2 optional enum
	Wrapped   *wrapperspb.Int64Value
	Flag      *wrapperspb.BoolValue
	Name      *wrapperspb.StringValue
	Blob      *wrapperspb.BytesValue
	Stamp     *timestamppb.Timestamp
	Raw       []byte
	WrappedID struct{ V *wrapperspb.UInt32Value }
}

// TestFields_pointerLeaves: a pointer leaf is keyed by the value it points
// to, as its element type is and as grpclock keys the field (enums by
// number, a duration in nanoseconds), not by the String method its
// pointer type has too; a proto wrapper by its value.
func TestFields_pointerLeaves(t *testing.T) {
	paid, dur, lbl := status(1), 1500*time.Millisecond, label("x")
	pp := &paid
	typ := descriptorpb.FieldDescriptorProto_TYPE_STRING
	v := leaves{
		meta: &meta{OrderID: "o1"}, Status: &paid, Dur: &dur, Label: &lbl, PtrPtr: &pp, Type: &typ,
		Wrapped: wrapperspb.Int64(0), Flag: wrapperspb.Bool(false), Name: wrapperspb.String("n"),
		Blob: wrapperspb.Bytes([]byte{0xff}), WrappedID: struct{ V *wrapperspb.UInt32Value }{wrapperspb.UInt32(7)},
	}
	for path, part := range map[string]string{
		"OrderID": "o1", "Status": "1", "Dur": "1500000000", "Label": "x", "PtrPtr": "1", "Type": "9",
		"Wrapped": "0", "Flag": "false", "Name": "n", "Blob": "/w==", "WrappedID.V": "7", "Wrapped.Value": "0",
	} {
		key, err := keybuilder.Fields[leaves]("lock4go", "n", []string{path})
		if err != nil {
			t.Fatalf("Fields(%q): %v", path, err)
		}
		got, err := key(v)
		if want, _ := keybuilder.Join("lock4go", "n", part); err != nil || got != want {
			t.Errorf("%s: key %q, %v; want %q", path, got, err, want)
		}
	}
}

// TestFields_nilLeaves: a nil pointer on the way, an embedded one and a
// nil wrapper included, is a missing part, not a panic.
func TestFields_nilLeaves(t *testing.T) {
	for _, path := range []string{"OrderID", "Status", "Dur", "PtrPtr", "Type", "Wrapped", "Name", "WrappedID.V"} {
		key, err := keybuilder.Fields[leaves]("lock4go", "n", []string{path})
		if err != nil {
			t.Fatalf("Fields(%q): %v", path, err)
		}
		var pe *keybuilder.PartError
		_, err = key(leaves{})
		if !errors.As(err, &pe) || !pe.Missing || !errors.Is(err, executor.ErrInvalidKey) {
			t.Errorf("%s of a zero value: %v, want a missing PartError", path, err)
		}
	}
}

// TestFields_protoMessageLeaf: a proto message is not a scalar (its
// String, prototext, is not stable), wrappers aside.
func TestFields_protoMessageLeaf(t *testing.T) {
	if _, err := keybuilder.Fields[leaves]("lock4go", "n", []string{"Stamp"}); !errors.Is(err, executor.ErrInvalidConfig) {
		t.Fatalf("Fields(Stamp) = %v, want ErrInvalidConfig", err)
	}
}

// TestFields_bytesCap: the part cap is on a []byte's bytes, as grpclock
// caps a bytes field, not on its base64 form: 64 KiB of bytes are keyed.
func TestFields_bytesCap(t *testing.T) {
	key, err := keybuilder.Fields[leaves]("lock4go", "n", []string{"Raw"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := key(leaves{Raw: make([]byte, keybuilder.DefaultMaxPartLen)}); err != nil {
		t.Errorf("%d bytes: %v, want a key", keybuilder.DefaultMaxPartLen, err)
	}
	_, err = key(leaves{Raw: make([]byte, keybuilder.DefaultMaxPartLen+1)})
	if !errors.Is(err, executor.ErrInvalidKey) || !strings.Contains(err.Error(), "part cap") {
		t.Errorf("%d bytes: %v, want over the part cap", keybuilder.DefaultMaxPartLen+1, err)
	}
}
