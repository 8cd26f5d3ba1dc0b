package grpclock

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/lock4go/lock4go"
)

// ServiceInfoProvider is what [Locks.Check] reads a server's methods from;
// *grpc.Server implements it.
type ServiceInfoProvider interface {
	GetServiceInfo() map[string]grpc.ServiceInfo
}

// Check checks every Spec against the services registered on srv, to be
// called after registering them and before serving. It returns an error
// wrapping lock4go.ErrInvalidConfig, naming each problem, when
//   - a Spec names a method srv does not have: "/pkg.Svc/pay" when the
//     method is Pay would otherwise leave Pay unlocked;
//   - a streaming method's Spec reads the request (req.<field>): a stream
//     is locked before its first message;
//   - a req.<field> expression does not fit the method's request type
//     (no such field, a repeated or message field), when the request type
//     is in the global proto registry (generated code registers it).
//
// Both interceptors are installed together ([Locks.ServerOptions]), so no
// Spec can lack the interceptor of its method's kind. Until Check has
// passed, the first call logs a warning that it was not called.
func (l *Locks) Check(srv ServiceInfoProvider) error {
	if srv == nil {
		return fmt.Errorf("grpclock: Check of a nil server: %w", lock4go.ErrInvalidConfig)
	}
	infos := srv.GetServiceInfo()
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(l.methods)) {
		if err := l.checkMethod(infos, name); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("grpclock: Check: %w", errors.Join(errs...))
	}
	l.checked.Store(true)
	return nil
}

// checkMethod checks the Spec of the full method name against infos.
func (l *Locks) checkMethod(infos map[string]grpc.ServiceInfo, name string) error {
	svc, meth, _ := strings.Cut(name[1:], "/")
	info, ok := infos[svc]
	i := slices.IndexFunc(info.Methods, func(m grpc.MethodInfo) bool { return m.Name == meth })
	if !ok || i < 0 {
		return fmt.Errorf("Spec for %q: the server has no such method%s: %w", name, closest(infos, name), lock4go.ErrInvalidConfig)
	}
	m := l.methods[name]
	mi := info.Methods[i]
	if mi.IsClientStream || mi.IsServerStream {
		for _, b := range m.keys {
			if b.readReq {
				return fmt.Errorf("Spec for %q: a streaming method is locked before its first message, so its keys cannot use req.<field>: %w",
					name, lock4go.ErrInvalidConfig)
			}
		}
		return nil
	}
	return checkRequestType(svc, meth, name, m)
}

// checkRequestType checks the req.<field> expressions of m against the
// request type of the method, if the global registry knows it.
func checkRequestType(svc, meth, name string, m *method) error {
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(svc))
	sd, ok := d.(protoreflect.ServiceDescriptor)
	if err != nil || !ok || sd.Methods().ByName(protoreflect.Name(meth)) == nil {
		return nil // not registered (dynamic services): checked per call
	}
	in := sd.Methods().ByName(protoreflect.Name(meth)).Input()
	for _, b := range m.keys {
		for _, e := range b.exprs {
			if e.Path == nil {
				continue
			}
			if _, err := resolvePath(in, e.Path); err != nil {
				return fmt.Errorf("Spec for %q: expression %q: %w", name, e.Src, err)
			}
		}
	}
	return nil
}

// closest returns a hint naming the method of infos that matches name
// ignoring case, if any.
func closest(infos map[string]grpc.ServiceInfo, name string) string {
	for svc, info := range infos {
		for _, m := range info.Methods {
			if full := "/" + svc + "/" + m.Name; strings.EqualFold(full, name) {
				return fmt.Sprintf(" (did you mean %q?)", full)
			}
		}
	}
	return ""
}
