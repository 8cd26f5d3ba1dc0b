package grpclock

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	_ "google.golang.org/protobuf/types/known/wrapperspb" // registers wrappers.proto
)

// payDescriptor returns the descriptor of a proto3 message with a field of
// every scalar kind, one with explicit presence (optional) and wrappers:
//
//	enum Kind { KIND_UNSPECIFIED = 0; KIND_CARD = 9; }
//	message Pay {
//	  string order_id = 1; Kind kind = 2; double amount = 3; float rate = 4;
//	  int64 count = 5; bool urgent = 6; bytes token = 7; uint32 seq = 8;
//	  optional int64 opt_count = 9; google.protobuf.Int64Value wrapped = 10;
//	  google.protobuf.StringValue wrapped_name = 11; double neg = 12;
//	}
func payDescriptor(t testing.TB) protoreflect.MessageDescriptor {
	t.Helper()
	f := func(name string, n int32, typ descriptorpb.FieldDescriptorProto_Type) *descriptorpb.FieldDescriptorProto {
		return &descriptorpb.FieldDescriptorProto{Name: proto.String(name), Number: proto.Int32(n), Type: typ.Enum(),
			Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()}
	}
	kind := f("kind", 2, descriptorpb.FieldDescriptorProto_TYPE_ENUM)
	kind.TypeName = proto.String(".lock4go.test.Kind")
	opt := f("opt_count", 9, descriptorpb.FieldDescriptorProto_TYPE_INT64)
	opt.Proto3Optional, opt.OneofIndex = proto.Bool(true), proto.Int32(0)
	wrapped := f("wrapped", 10, descriptorpb.FieldDescriptorProto_TYPE_MESSAGE)
	wrapped.TypeName = proto.String(".google.protobuf.Int64Value")
	wrappedName := f("wrapped_name", 11, descriptorpb.FieldDescriptorProto_TYPE_MESSAGE)
	wrappedName.TypeName = proto.String(".google.protobuf.StringValue")
	optKind := f("opt_kind", 13, descriptorpb.FieldDescriptorProto_TYPE_ENUM)
	optKind.TypeName = proto.String(".lock4go.test.Kind")
	optKind.Proto3Optional, optKind.OneofIndex = proto.Bool(true), proto.Int32(1)
	ref := f("ref", 14, descriptorpb.FieldDescriptorProto_TYPE_STRING)
	ref.Proto3Optional, ref.OneofIndex = proto.Bool(true), proto.Int32(2)
	file := &descriptorpb.FileDescriptorProto{
		Name: proto.String("lock4go_grpclock_test.proto"), Package: proto.String("lock4go.test"),
		Syntax: proto.String("proto3"), Dependency: []string{"google/protobuf/wrappers.proto"},
		EnumType: []*descriptorpb.EnumDescriptorProto{{Name: proto.String("Kind"), Value: []*descriptorpb.EnumValueDescriptorProto{
			{Name: proto.String("KIND_UNSPECIFIED"), Number: proto.Int32(0)},
			{Name: proto.String("KIND_CARD"), Number: proto.Int32(9)},
		}}},
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("Pay"),
			Field: []*descriptorpb.FieldDescriptorProto{
				f("order_id", 1, descriptorpb.FieldDescriptorProto_TYPE_STRING), kind,
				f("amount", 3, descriptorpb.FieldDescriptorProto_TYPE_DOUBLE), f("rate", 4, descriptorpb.FieldDescriptorProto_TYPE_FLOAT),
				f("count", 5, descriptorpb.FieldDescriptorProto_TYPE_INT64), f("urgent", 6, descriptorpb.FieldDescriptorProto_TYPE_BOOL),
				f("token", 7, descriptorpb.FieldDescriptorProto_TYPE_BYTES), f("seq", 8, descriptorpb.FieldDescriptorProto_TYPE_UINT32),
				opt, wrapped, wrappedName, f("neg", 12, descriptorpb.FieldDescriptorProto_TYPE_DOUBLE), optKind, ref,
			},
			OneofDecl: []*descriptorpb.OneofDescriptorProto{
				{Name: proto.String("_opt_count")}, {Name: proto.String("_opt_kind")}, {Name: proto.String("_ref")},
			},
		}},
	}
	fd, err := protodesc.NewFile(file, protoregistry.GlobalFiles)
	if err != nil {
		t.Fatal(err)
	}
	return fd.Messages().ByName("Pay")
}

// payMessage returns a dynamic Pay with the fields set to the values of
// fields (by name): Go values as protoreflect.ValueOf takes them, and for
// the wrappers an int64 or a string.
func payMessage(md protoreflect.MessageDescriptor, fields map[string]any) *dynamicpb.Message {
	m := dynamicpb.NewMessage(md)
	for name, v := range fields {
		fd := md.Fields().ByName(protoreflect.Name(name))
		if fd.Kind() == protoreflect.MessageKind {
			w := dynamicpb.NewMessage(fd.Message())
			w.Set(fd.Message().Fields().ByNumber(1), protoreflect.ValueOf(v))
			m.Set(fd, protoreflect.ValueOfMessage(w))
			continue
		}
		if fd.Kind() == protoreflect.EnumKind {
			v = protoreflect.EnumNumber(v.(int32))
		}
		m.Set(fd, protoreflect.ValueOf(v))
	}
	return m
}
