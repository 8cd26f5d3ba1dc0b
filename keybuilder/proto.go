package keybuilder

import (
	"fmt"
	"strconv"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/lock4go/lock4go/executor"
)

// protoField returns the scalar at path in req, "" when it is not set.
func protoField(req any, path []string) (string, error) {
	m, ok := req.(proto.Message)
	if !ok || m == nil {
		return "", fmt.Errorf("request %T is not a proto.Message: %w", req, executor.ErrInvalidConfig)
	}
	msg := m.ProtoReflect()
	if !msg.IsValid() {
		return "", nil
	}
	for i, seg := range path {
		fields := msg.Descriptor().Fields()
		fd := fields.ByName(protoreflect.Name(seg))
		if fd == nil {
			fd = fields.ByJSONName(seg)
		}
		if fd == nil {
			return "", fmt.Errorf("%s has no field %q: %w", msg.Descriptor().FullName(), seg, executor.ErrInvalidConfig)
		}
		if fd.IsList() || fd.IsMap() {
			return "", fmt.Errorf("field %s is repeated; key parts must be scalars: %w", fd.FullName(), executor.ErrInvalidConfig)
		}
		last := i == len(path)-1
		isMsg := fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind
		if last == isMsg {
			if isMsg {
				return "", fmt.Errorf("field %s is a message; key parts must be scalars: %w", fd.FullName(), executor.ErrInvalidConfig)
			}
			return "", fmt.Errorf("field %s is not a message: %w", fd.FullName(), executor.ErrInvalidConfig)
		}
		if !msg.Has(fd) {
			return "", nil
		}
		v := msg.Get(fd)
		if !last {
			msg = v.Message()
			continue
		}
		return scalar(fd, v), nil
	}
	return "", nil
}

// scalar formats a scalar field value.
func scalar(fd protoreflect.FieldDescriptor, v protoreflect.Value) string {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return strconv.FormatBool(v.Bool())
	case protoreflect.EnumKind:
		return strconv.FormatInt(int64(v.Enum()), 10)
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return strconv.FormatInt(v.Int(), 10)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return strconv.FormatUint(v.Uint(), 10)
	case protoreflect.FloatKind:
		return strconv.FormatFloat(v.Float(), 'g', -1, 32)
	case protoreflect.DoubleKind:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case protoreflect.StringKind:
		return v.String()
	case protoreflect.BytesKind:
		return string(v.Bytes())
	}
	return ""
}
