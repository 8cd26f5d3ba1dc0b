package grpclock

import (
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/keyexpr"
)

// protoField returns the scalar at path in req, formatted as every key
// builder formats that value, "" when it is not set. A string longer than
// maxPart bytes, or a bytes value of more than maxPart bytes (the cap is
// on the raw value, not its base64 form), is an error wrapping
// executor.ErrInvalidKey, found before anything is copied.
func protoField(req any, path []string, maxPart int) (string, error) {
	m, ok := req.(proto.Message)
	if !ok || m == nil {
		return "", fmt.Errorf("request %T is not a proto.Message: %w", req, executor.ErrInvalidConfig)
	}
	msg := m.ProtoReflect()
	if !msg.IsValid() {
		return "", nil
	}
	fds, err := resolvePath(msg.Descriptor(), path)
	if err != nil {
		return "", err
	}
	for _, fd := range fds[:len(fds)-1] {
		if !msg.Has(fd) {
			return "", nil
		}
		msg = msg.Get(fd).Message()
	}
	leaf := fds[len(fds)-1]
	// A set wrapper holds a value, zero included: its presence is the
	// wrapper's, whether the path names the wrapper or its value.
	inWrapper := len(fds) > 1 && isWrapper(fds[len(fds)-2])
	if !inWrapper && !msg.Has(leaf) {
		return "", nil
	}
	v := msg.Get(leaf)
	if isWrapper(leaf) {
		w := v.Message()
		leaf = w.Descriptor().Fields().ByNumber(1)
		v = w.Get(leaf)
	}
	return scalar(leaf, v, maxPart)
}

// resolvePath returns the fields path names in md (proto or JSON names):
// messages on the way, a scalar or a well-known wrapper
// (google.protobuf.Int64Value…) at the end. Anything else is an error
// wrapping executor.ErrInvalidConfig: the expression does not fit the
// request type.
func resolvePath(md protoreflect.MessageDescriptor, path []string) ([]protoreflect.FieldDescriptor, error) {
	fds := make([]protoreflect.FieldDescriptor, len(path))
	for i, seg := range path {
		fields := md.Fields()
		fd := fields.ByName(protoreflect.Name(seg))
		if fd == nil {
			fd = fields.ByJSONName(seg)
		}
		if fd == nil {
			return nil, fmt.Errorf("%s has no field %q: %w", md.FullName(), seg, executor.ErrInvalidConfig)
		}
		if fd.IsList() || fd.IsMap() {
			return nil, fmt.Errorf("field %s is repeated; key parts must be scalars: %w", fd.FullName(), executor.ErrInvalidConfig)
		}
		last := i == len(path)-1
		isMsg := fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind
		switch {
		case last && isMsg && !isWrapper(fd):
			return nil, fmt.Errorf("field %s is a message; key parts must be scalars: %w", fd.FullName(), executor.ErrInvalidConfig)
		case !last && !isMsg:
			return nil, fmt.Errorf("field %s is not a message: %w", fd.FullName(), executor.ErrInvalidConfig)
		}
		fds[i] = fd
		if isMsg {
			md = fd.Message()
		}
	}
	return fds, nil
}

// isWrapper reports whether fd holds a well-known wrapper message, whose
// one field "value" is the scalar.
func isWrapper(fd protoreflect.FieldDescriptor) bool {
	if fd.Kind() != protoreflect.MessageKind {
		return false
	}
	switch fd.Message().FullName() {
	case "google.protobuf.DoubleValue", "google.protobuf.FloatValue", "google.protobuf.Int64Value",
		"google.protobuf.UInt64Value", "google.protobuf.Int32Value", "google.protobuf.UInt32Value",
		"google.protobuf.BoolValue", "google.protobuf.StringValue", "google.protobuf.BytesValue":
		return true
	}
	return false
}

// scalar formats a scalar field value with the formatter every builder
// shares (package internal/keyexpr): enums by number, floats in one form per
// value (NaN and infinities refused), bytes in standard base64.
func scalar(fd protoreflect.FieldDescriptor, v protoreflect.Value, maxPart int) (string, error) {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return keyexpr.Bool(v.Bool()), nil
	case protoreflect.EnumKind:
		return keyexpr.Int(int64(v.Enum())), nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return keyexpr.Int(v.Int()), nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return keyexpr.Uint(v.Uint()), nil
	case protoreflect.FloatKind:
		return keyexpr.Float32(float32(v.Float()))
	case protoreflect.DoubleKind:
		return keyexpr.Float(v.Float())
	case protoreflect.StringKind:
		if s := v.String(); len(s) > maxPart { // no copy: the string is the message's
			return "", fmt.Errorf("%d bytes, longer than the part cap of %d: %w", len(s), maxPart, executor.ErrInvalidKey)
		}
		return v.String(), nil
	case protoreflect.BytesKind:
		b := v.Bytes()
		if len(b) > maxPart {
			return "", fmt.Errorf("%d bytes, longer than the part cap of %d: %w", len(b), maxPart, executor.ErrInvalidKey)
		}
		return keyexpr.Bytes(b), nil
	}
	return "", fmt.Errorf("field %s of kind %v is not a scalar: %w", fd.FullName(), fd.Kind(), executor.ErrInvalidConfig)
}
