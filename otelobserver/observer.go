package otelobserver

import (
	"context"
	"errors"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/lock4go/lock4go"
)

const scope = "github.com/lock4go/lock4go/otelobserver"

// Options configures an [Observer]. The zero value uses the global meter
// provider and records no spans.
type Options struct {
	// MeterProvider creates the instruments. Nil means otel.GetMeterProvider().
	MeterProvider metric.MeterProvider

	// TracerProvider, when set, records a span "lock4go.acquire" for every
	// acquisition attempt loop and "lock4go.hold" for every released or lost
	// lock, as children of the caller's span. Nil means no spans.
	TracerProvider trace.TracerProvider

	// LockName maps a key to the lock name attribute. Nil means
	// [DefaultLockName], which never uses a whole key, to keep the
	// attribute's cardinality bounded.
	LockName func(key string) string
}

// Observer is a [lock4go.Observer] recording OpenTelemetry metrics and
// spans. It is safe for concurrent use.
type Observer struct {
	name     func(string) string
	tracer   trace.Tracer
	wait     metric.Float64Histogram
	attempts metric.Int64Histogram
	hold     metric.Float64Histogram
	notAcq   metric.Int64Counter
	lost     metric.Int64Counter
	expired  metric.Int64Counter
	renewErr metric.Int64Counter
	held     metric.Int64UpDownCounter
}

var _ lock4go.Observer = (*Observer)(nil)

// New creates the instruments and returns the observer.
func New(opts Options) (*Observer, error) {
	mp := opts.MeterProvider
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	m := mp.Meter(scope)
	o := &Observer{name: opts.LockName}
	if o.name == nil {
		o.name = DefaultLockName
	}
	if opts.TracerProvider != nil {
		o.tracer = opts.TracerProvider.Tracer(scope)
	}
	var errs []error
	add := func(err error) { errs = append(errs, err) }
	var err error
	o.wait, err = m.Float64Histogram("lock4go.acquire.wait", metric.WithUnit("s"),
		metric.WithDescription("Time spent acquiring a lock."))
	add(err)
	o.attempts, err = m.Int64Histogram("lock4go.acquire.attempts", metric.WithUnit("{attempt}"),
		metric.WithDescription("Attempts per acquisition."))
	add(err)
	o.hold, err = m.Float64Histogram("lock4go.hold.duration", metric.WithUnit("s"),
		metric.WithDescription("Time from acquisition to release or loss."))
	add(err)
	o.notAcq, err = m.Int64Counter("lock4go.not_acquired", metric.WithDescription("Acquisitions that gave up."))
	add(err)
	o.lost, err = m.Int64Counter("lock4go.lost", metric.WithDescription("Locks lost before release."))
	add(err)
	o.expired, err = m.Int64Counter("lock4go.expired", metric.WithDescription("Fixed leases that ended before release."))
	add(err)
	o.renewErr, err = m.Int64Counter("lock4go.renew.failures", metric.WithDescription("Failed lease renewals (retried)."))
	add(err)
	o.held, err = m.Int64UpDownCounter("lock4go.held", metric.WithDescription("Locks held now."))
	add(err)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return o, nil
}

// DefaultLockName returns the name part of key, never the whole key: up to
// its first '#' for keys built by key builders ("lock4go:pay#42" gives
// "lock4go:pay"), otherwise up to its last ':' ("order:42" gives "order"),
// and [UnnamedLock] for a key with neither, which may well be an id.
func DefaultLockName(key string) string {
	if i := strings.IndexByte(key, '#'); i >= 0 {
		return key[:i]
	}
	if i := strings.LastIndexByte(key, ':'); i >= 0 {
		return key[:i]
	}
	return UnnamedLock
}

// UnnamedLock is the lock name attribute [DefaultLockName] gives a key with
// no name part.
const UnnamedLock = "unnamed"

// Observe implements [lock4go.Observer].
func (o *Observer) Observe(ctx context.Context, e lock4go.Event) {
	attrs := []attribute.KeyValue{
		attribute.String("lock4go.executor", e.Executor),
		attribute.String("lock4go.lock.name", o.name(e.Key)),
	}
	set := metric.WithAttributes(attrs...)
	switch e.Kind {
	case lock4go.EventAcquired:
		o.wait.Record(ctx, e.Wait.Seconds(), metric.WithAttributes(append(attrs, attribute.String("lock4go.outcome", "acquired"))...))
		o.attempts.Record(ctx, int64(e.Attempts), set)
		o.held.Add(ctx, 1, set)
		o.span(ctx, "lock4go.acquire", e, e.Wait, nil)
	case lock4go.EventNotAcquired:
		outcome := "not_acquired"
		if errors.Is(e.Err, lock4go.ErrBackend) {
			outcome = "backend_error"
		}
		o.wait.Record(ctx, e.Wait.Seconds(), metric.WithAttributes(append(attrs, attribute.String("lock4go.outcome", outcome))...))
		o.attempts.Record(ctx, int64(e.Attempts), set)
		o.notAcq.Add(ctx, 1, set)
		o.span(ctx, "lock4go.acquire", e, e.Wait, e.Err)
	case lock4go.EventReleased:
		o.hold.Record(ctx, e.Held.Seconds(), set)
		o.held.Add(ctx, -1, set)
		o.span(ctx, "lock4go.hold", e, e.Held, e.Err)
	case lock4go.EventLost:
		o.hold.Record(ctx, e.Held.Seconds(), set)
		o.held.Add(ctx, -1, set)
		o.lost.Add(ctx, 1, set)
		o.span(ctx, "lock4go.hold", e, e.Held, e.Err)
	case lock4go.EventExpired:
		o.hold.Record(ctx, e.Held.Seconds(), set)
		o.held.Add(ctx, -1, set)
		o.expired.Add(ctx, 1, set)
		o.span(ctx, "lock4go.hold", e, e.Held, nil)
	case lock4go.EventRenewFailed:
		o.renewErr.Add(ctx, 1, set)
	}
}

// span records a finished span that started d ago, when tracing is on.
func (o *Observer) span(ctx context.Context, name string, e lock4go.Event, d time.Duration, err error) {
	if o.tracer == nil {
		return
	}
	end := time.Now()
	_, sp := o.tracer.Start(ctx, name, trace.WithTimestamp(end.Add(-d)), trace.WithAttributes(
		attribute.String("lock4go.executor", e.Executor),
		attribute.String("lock4go.lock.name", o.name(e.Key)),
		attribute.Int64("lock4go.token", e.Token),
		attribute.Int("lock4go.attempts", e.Attempts),
	))
	if err != nil {
		sp.SetStatus(codes.Error, err.Error())
	}
	sp.End(trace.WithTimestamp(end))
}
